// The recorded data-flow graph (op executions and the producer -> consumer edges found at
// run time) and a layered layout for drawing it. Renderers: formats/dot.hpp (Graphviz) and
// formats/graph_html.hpp (self-contained HTML with inline SVG).
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include "../core/config.hpp"
#include "../detail/string_table.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

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

inline graph_layout layout_graph(const dataflow_graph& g, double node_w = 180, double node_h = 54,
                                 double gap_x = 30, double gap_y = 46) {
  const size_t n = g.nodes.size();
  std::vector<int> layer(n, 0);
  std::vector<std::vector<size_t>> preds(n);
  for (const graph_edge& e : g.edges) preds[e.to].push_back(e.from);
  int max_layer = 0;
  for (size_t i = 0; i < n; ++i) {  // nodes are in sequence order: producers come first
    for (size_t p : preds[i]) layer[i] = (layer[i] > layer[p] + 1 ? layer[i] : layer[p] + 1);
    if (layer[i] > max_layer) max_layer = layer[i];
  }
  std::vector<std::vector<size_t>> rows(static_cast<size_t>(max_layer) + 1);
  for (size_t i = 0; i < n; ++i) rows[static_cast<size_t>(layer[i])].push_back(i);
  std::vector<double> pos(n, 0);
  for (auto& row : rows) {
    std::vector<double> bary(row.size());
    for (size_t k = 0; k < row.size(); ++k) {
      double sum = 0;
      for (size_t p : preds[row[k]]) sum += pos[p];
      bary[k] = preds[row[k]].empty() ? static_cast<double>(k) : sum / static_cast<double>(preds[row[k]].size());
    }
    // Stable insertion sort by barycenter (rows are small; <algorithm> is not worth its cost).
    for (size_t k = 1; k < row.size(); ++k)
      for (size_t j = k; j > 0 && bary[j] < bary[j - 1]; --j) {
        const double tb = bary[j];
        bary[j] = bary[j - 1];
        bary[j - 1] = tb;
        const size_t tr = row[j];
        row[j] = row[j - 1];
        row[j - 1] = tr;
      }
    for (size_t k = 0; k < row.size(); ++k) pos[row[k]] = static_cast<double>(k);
  }
  graph_layout l;
  l.boxes.resize(n);
  size_t widest = 1;
  for (const auto& row : rows) if (row.size() > widest) widest = row.size();
  l.width = static_cast<double>(widest) * (node_w + gap_x) + gap_x;
  for (size_t r = 0; r < rows.size(); ++r) {
    const double row_w = static_cast<double>(rows[r].size()) * (node_w + gap_x) - gap_x;
    const double x0 = (l.width - row_w) / 2;
    for (size_t k = 0; k < rows[r].size(); ++k)
      l.boxes[rows[r][k]] = {x0 + static_cast<double>(k) * (node_w + gap_x),
                             gap_y / 2 + static_cast<double>(r) * (node_h + gap_y), node_w, node_h};
  }
  l.height = static_cast<double>(rows.size()) * (node_h + gap_y) + gap_y / 2;
  return l;
}

}  // namespace detail
PROBE_END_NAMESPACE
