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
  std::string producer;  // inputs: key of the main producing output ("" = graph source)
  std::string stats;     // short health summary, may be empty
  std::vector<std::string> producers;  // inputs: every output that wrote some of its bytes (edges)
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
  std::string slot, key;    // the input slot and the producer key it comes from
};

struct dataflow_graph {
  std::vector<graph_node> nodes;  // in sequence order
  std::vector<graph_edge> edges;
  size_t dropped_nodes = 0;       // executions not kept (size cap)

  // Resolves producer keys ("<op>#<occ>/out/<slot>") into edges between kept nodes: one per
  // producer of an input's bytes (an input written in pieces by several ops has several).
  void link() {
    edges.clear();
    string_table output_of;  // key -> node index + 1
    for (size_t i = 0; i < nodes.size(); ++i)
      for (const graph_tensor& out : nodes[i].outputs)
        output_of[nodes[i].name + "#" + std::to_string(nodes[i].occurrence) + "/out/" + out.slot] = i + 1;
    for (size_t to = 0; to < nodes.size(); ++to)
      for (const graph_tensor& in : nodes[to].inputs) {
        const size_t n = in.producers.empty() ? 1 : in.producers.size();
        for (size_t k = 0; k < n; ++k) {
          const std::string& key = in.producers.empty() ? in.producer : in.producers[k];
          const uint64_t* from = key.empty() ? nullptr : output_of.find(key);
          if (!from || *from - 1 >= to) continue;
          bool seen = false;  // one edge per producing output and input slot
          for (size_t e = edges.size(); e-- > 0 && edges[e].to == to;)
            seen = seen || (edges[e].from == *from - 1 && edges[e].slot == in.slot && edges[e].key == key);
          if (seen) continue;
          // The producer's slot: the key past its node's "name#occurrence/out/" (slots may hold '/').
          const graph_node& producer = nodes[*from - 1];
          const size_t prefix = producer.name.size() + 1 + std::to_string(producer.occurrence).size() + 5;
          const std::string out_slot = key.size() > prefix ? key.substr(prefix) : key;
          edges.push_back({static_cast<size_t>(*from - 1), to, out_slot + " -> " + in.slot, in.slot, key});
        }
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
