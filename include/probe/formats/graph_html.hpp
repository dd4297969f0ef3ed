// The data-flow graph as one self-contained HTML page: an inline SVG drawing (layered
// layout) and a table of every op execution with its tensors. No scripts or resources from
// the network; opens in any browser.
#pragma once
#include <stdio.h>

#include <string>

#include "graph.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API std::string xml_escape(const std::string& s);

PROBE_API std::string fmt_num(double v);

// Clips a label to what fits in a box (characters are ~6.2 px at 11 px Helvetica).
PROBE_API std::string clip_label(const std::string& s, double width);

PROBE_API std::string render_graph_svg(const dataflow_graph& g);

PROBE_API std::string render_graph_html(const dataflow_graph& g, const std::string& title);

}  // namespace detail
PROBE_END_NAMESPACE
