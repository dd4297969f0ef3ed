// dot: definitions (see dot.hpp).
#pragma once
#include "dot.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API std::string dot_escape(const std::string& s) {
  std::string o;
  for (char c : graph_text(s)) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o;
}

// Labels stay readable and the file stays small whatever the engine names things: a label
// keeps its first k_dot_label_cap bytes (whole UTF-8 characters) and says it was cut.
constexpr size_t k_dot_label_cap = 512;
inline std::string capped_label(std::string s) {
  if (s.size() <= k_dot_label_cap) return s;
  size_t n = k_dot_label_cap;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  s.resize(n);
  s += "...";
  return s;
}

PROBE_API std::string render_dot(const dataflow_graph& g) {
  std::string o = "digraph probe {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", "
                  "fillcolor=\"#eef3fb\", fontname=\"Helvetica\", fontsize=10];\n"
                  "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#556070\"];\n";
  for (const graph_node& n : g.nodes) {
    std::string label = "#";  // appended: "#" + std::to_string() trips GCC 12's -Wrestrict at -O3
    label += std::to_string(n.seq);
    label += ' ';
    label += n.name;
    if (!n.type.empty()) label += " (" + n.type + ")";
    for (const graph_tensor& t : n.outputs) label += "\n" + t.slot + ": " + t.dtype + t.shape;
    char id[32];
    snprintf(id, sizeof id, "n%llu", static_cast<unsigned long long>(n.seq));
    o += "  " + std::string(id) + " [label=\"" + dot_escape(capped_label(label)) + "\"];\n";
  }
  for (const graph_edge& e : g.edges) {
    char ids[64];
    snprintf(ids, sizeof ids, "n%llu -> n%llu", static_cast<unsigned long long>(g.nodes[e.from].seq),
             static_cast<unsigned long long>(g.nodes[e.to].seq));
    o += "  " + std::string(ids) + " [label=\"" + dot_escape(capped_label(e.label)) + "\"];\n";
  }
  if (g.dropped_nodes)
    o += "  note [shape=note, fillcolor=\"#fff4d6\", label=\"" + std::to_string(g.dropped_nodes) +
         " later op executions not drawn\"];\n";
  o += "}\n";
  return o;
}

}  // namespace detail
PROBE_END_NAMESPACE
