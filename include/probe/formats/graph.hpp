// The recorded data-flow graph (op executions and the producer -> consumer edges found at
// run time) and a layered layout for drawing it. Renderers: formats/dot.hpp (Graphviz) and
// formats/graph_html.hpp (self-contained HTML with inline SVG).
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include "../util/config.hpp"
#include "../util/string_table.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Length of the valid UTF-8 sequence at p (1-4), or 0 when the bytes there are not one
// (overlong forms, surrogates and code points past U+10FFFF are not).
inline size_t utf8_length_at(const unsigned char* p, const unsigned char* end) {
  const unsigned c = p[0];
  if (c < 0x80) return 1;
  size_t need = 0;
  unsigned lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (static_cast<size_t>(end - p) <= need || p[1] < lo || p[1] > hi) return 0;
  for (size_t k = 2; k <= need; ++k)
    if ((p[k] & 0xC0) != 0x80) return 0;
  return need + 1;
}

// Names as drawn: op and slot names are whatever the engine passed; bytes that are not UTF-8
// become U+FFFD so that DOT, SVG and HTML stay valid text.
inline std::string graph_text(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  const unsigned char* p = reinterpret_cast<const unsigned char*>(s.data());
  const unsigned char* end = p + s.size();
  while (p < end) {
    const size_t n = utf8_length_at(p, end);
    if (n) o.append(reinterpret_cast<const char*>(p), n);
    else o += "\xef\xbf\xbd";
    p += n ? n : 1;
  }
  return o;
}

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
