// The data-flow graph: layout, DOT, SVG and HTML.
#include "compiled.hpp"

#include <probe/formats/graph_impl.hpp>
#include <probe/formats/dot_impl.hpp>
#include <probe/formats/graph_html_impl.hpp>
