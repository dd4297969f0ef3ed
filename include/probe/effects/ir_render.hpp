// One stage of an engine's IR as files: the text a diff reads (the printer's text, or its
// graph written as lines), Graphviz DOT, and a self-contained HTML page drawn with the
// data-flow graph's layout. Internal header of ir_dump_impl.hpp.
#pragma once
#include <string>

#include "../formats/dot.hpp"
#include "../formats/graph.hpp"
#include "../formats/graph_html.hpp"
#include "ir_dump.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct ir_attr {
  std::string key, value;
};
struct ir_node_rec {
  std::string id, label;
  std::vector<ir_attr> attrs;
};
struct ir_edge_rec {
  std::string from, to, label;
};

// What an ir_out holds (the public class has no members: probe.hpp stays without <string>).
struct ir_buffer : ir_out {
  ir_buffer() = default;
  std::string text;
  std::vector<ir_node_rec> nodes;
  std::vector<ir_edge_rec> edges;
  void take(ir_buffer& from) noexcept {
    text.swap(from.text);
    nodes.swap(from.nodes);
    edges.swap(from.edges);
  }
};

inline std::string ir_attrs_text(const std::vector<ir_attr>& attrs) {
  std::string s;
  for (const ir_attr& a : attrs) s += (s.empty() ? "" : ", ") + a.key + "=" + a.value;
  return s;
}

// What text files hold and hashes are taken of: the printer's text, else one line per node
// ("%id = label {k=v, ...}") then one per edge ("%a -> %b label"), in the order given.
inline std::string ir_canonical_text(const ir_buffer& out) {
  if (!out.text.empty() || (out.nodes.empty() && out.edges.empty())) return out.text;
  std::string s;
  for (const ir_node_rec& n : out.nodes) {
    s += "%" + n.id + " = " + n.label;
    if (!n.attrs.empty()) s += " {" + ir_attrs_text(n.attrs) + "}";
    s += '\n';
  }
  for (const ir_edge_rec& e : out.edges) s += "%" + e.from + " -> %" + e.to + (e.label.empty() ? "" : " " + e.label) + "\n";
  return s;
}

inline uint64_t ir_line_count(const std::string& s) {
  uint64_t n = 0;
  for (char c : s) n += c == '\n';
  return n + (!s.empty() && s.back() != '\n');
}

// A printer that gave text only is drawn as one box holding it (left-aligned lines).
inline std::string render_ir_dot(const ir_buffer& out, const std::string& canon, const std::string& title) {
  std::string s = "digraph \"" + dot_escape(title) + "\" {\n  node [shape=box, fontname=\"Helvetica\", fontsize=11];\n";
  if (out.nodes.empty()) {
    std::string label;
    for (char c : graph_text(canon)) label += c == '\n' ? std::string("\\l") : dot_escape(std::string(1, c));
    s += "  ir [label=\"" + label + "\", fontname=\"Courier\"];\n}\n";
    return s;
  }
  for (const ir_node_rec& n : out.nodes) {
    std::string label = n.label;
    for (const ir_attr& a : n.attrs) label += "\n" + a.key + "=" + a.value;
    s += "  \"" + dot_escape(n.id) + "\" [label=\"" + dot_escape(graph_text(label)) + "\"];\n";
  }
  for (const ir_edge_rec& e : out.edges) {
    s += "  \"" + dot_escape(e.from) + "\" -> \"" + dot_escape(e.to) + "\"";
    if (!e.label.empty()) s += " [label=\"" + dot_escape(graph_text(e.label)) + "\"]";
    s += ";\n";
  }
  return s + "}\n";
}

// The graph in the data-flow graph's terms: a node per IR node (in the order given, which the
// layout takes as topological), an input per incoming edge.
inline dataflow_graph ir_as_dataflow(const ir_buffer& out) {
  dataflow_graph g;
  for (size_t i = 0; i < out.nodes.size(); ++i) {
    const ir_node_rec& n = out.nodes[i];
    graph_node gn;
    gn.seq = i;
    gn.name = n.id;
    gn.type = n.label;
    gn.outputs.push_back(graph_tensor{"out", "", "", "", ir_attrs_text(n.attrs), {}});
    for (const ir_edge_rec& e : out.edges)
      if (e.to == n.id) gn.inputs.push_back(graph_tensor{e.label.empty() ? e.from : e.label, "", "", e.from + "#0/out/out", "", {}});
    g.nodes.push_back(std::move(gn));
  }
  g.link();
  return g;
}

inline std::string render_ir_html(const ir_buffer& out, const std::string& canon, const std::string& title) {
  std::string s = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + xml_escape(graph_text(title)) +
                  "</title>\n<style>body{font-family:Helvetica,Arial,sans-serif;margin:16px}"
                  "pre{background:#f6f6f6;padding:8px;border:1px solid #ddd}</style></head>\n<body>\n<h1>" +
                  xml_escape(graph_text(title)) + "</h1>\n";
  if (!out.nodes.empty()) s += render_graph_svg(ir_as_dataflow(out)) + "\n";
  s += "<pre id=\"ir\">" + xml_escape(graph_text(canon)) + "</pre>\n</body></html>\n";
  return s;
}

}  // namespace detail
PROBE_END_NAMESPACE
