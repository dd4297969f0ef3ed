// graph: definitions (see graph.hpp).
#pragma once
#include "graph.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API std::string graph_text(const std::string& s) { return valid_utf8(s); }

PROBE_API graph_layout layout_graph(const dataflow_graph& g, double node_w, double node_h,
                                 double gap_x, double gap_y) {
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
