// The recorded data-flow graph (op executions and the producer -> consumer edges found at
// run time) and a layered layout for drawing it. Renderers: formats/dot.hpp (Graphviz) and
// formats/graph_html.hpp (self-contained HTML with inline SVG).
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include "../util/config.hpp"
#include "../util/text.hpp"
#include "../util/string_table.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Names as drawn: op and slot names are whatever the engine passed; bytes that are not UTF-8
// become U+FFFD so that DOT, SVG and HTML stay valid text.
PROBE_API std::string graph_text(const std::string& s);

struct graph_tensor {
  std::string slot;
  std::string dtype;
  std::string shape;     // "[2,3]"
  std::string producer;  // inputs: key of the producing output ("" = graph source)
  std::string stats;     // short health summary, may be empty
};

struct graph_node {
  uint64_t seq = 0;
  int64_t step = 0;
  std::string name, type;
  uint64_t occurrence = 0;
  std::vector<graph_tensor> inputs, outputs;
};

struct graph_edge {
  size_t from = 0, to = 0;  // node indices
  std::string label;        // "y -> x"
};

struct dataflow_graph {
  std::vector<graph_node> nodes;  // in sequence order
  std::vector<graph_edge> edges;
  size_t dropped_nodes = 0;       // executions not kept (size cap)

  // Resolves producer keys ("<op>#<occ>/out/<slot>") into edges between kept nodes.
  void link() {
    edges.clear();
    string_table output_of;  // key -> node index + 1
    for (size_t i = 0; i < nodes.size(); ++i)
      for (const graph_tensor& out : nodes[i].outputs)
        output_of[nodes[i].name + "#" + std::to_string(nodes[i].occurrence) + "/out/" + out.slot] = i + 1;
    for (size_t to = 0; to < nodes.size(); ++to)
      for (const graph_tensor& in : nodes[to].inputs) {
        const uint64_t* from = in.producer.empty() ? nullptr : output_of.find(in.producer);
        if (!from || *from - 1 >= to) continue;
        const size_t slash = in.producer.rfind('/');
        edges.push_back({static_cast<size_t>(*from - 1), to, in.producer.substr(slash + 1) + " -> " + in.slot});
      }
  }
};

// Layered layout: a node's layer is one below its deepest producer; within a layer nodes
// are ordered by the mean position of their producers (one barycentric sweep).
struct graph_layout {
  struct box {
    double x, y, w, h;
  };
  std::vector<box> boxes;
  double width = 0, height = 0;
};

PROBE_API graph_layout layout_graph(const dataflow_graph& g, double node_w = 180, double node_h = 54,
                                 double gap_x = 30, double gap_y = 46);

}  // namespace detail
PROBE_END_NAMESPACE
