// The data-flow graph as Graphviz DOT: one box per op execution, one edge per
// producer -> consumer tensor.
#pragma once
#include <stdio.h>

#include <string>

#include "graph.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Escapes text for a double-quoted DOT string (newlines become centred line breaks).
PROBE_API std::string dot_escape(const std::string& s);

PROBE_API std::string render_dot(const dataflow_graph& g);

}  // namespace detail
PROBE_END_NAMESPACE
