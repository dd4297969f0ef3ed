// graph_html: definitions (see graph_html.hpp).
#pragma once
#include "graph_html.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API std::string xml_escape(const std::string& s) { return xml_text(s); }

PROBE_API std::string fmt_num(double v) {
  char b[32];
  snprintf(b, sizeof b, "%.1f", v);
  return b;
}

PROBE_API std::string clip_label(const std::string& s, double width) {
  const size_t max_chars = static_cast<size_t>(width / 6.4);
  if (s.size() <= max_chars || max_chars < 2) return s;
  size_t cut = max_chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // whole code points
  return s.substr(0, cut) + "\xe2\x80\xa6";  // U+2026 ellipsis
}

PROBE_API std::string render_graph_svg(const dataflow_graph& g) {
  const graph_layout l = layout_graph(g);
  std::string o = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\" width=\"" + fmt_num(l.width) +
                  "\" height=\"" + fmt_num(l.height) + "\" viewBox=\"0 0 " + fmt_num(l.width) + " " +
                  fmt_num(l.height) + "\">\n"
                  "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" "
                  "markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#556070\"/></marker></defs>\n";
  for (const graph_edge& e : g.edges) {
    const auto& a = l.boxes[e.from];
    const auto& b = l.boxes[e.to];
    const double x1 = a.x + a.w / 2, y1 = a.y + a.h, x2 = b.x + b.w / 2, y2 = b.y;
    const double my = (y1 + y2) / 2;
    o += "<path class=\"edge\" d=\"M" + fmt_num(x1) + "," + fmt_num(y1) + " C" + fmt_num(x1) + "," +
         fmt_num(my) + " " + fmt_num(x2) + "," + fmt_num(my) + " " + fmt_num(x2) + "," + fmt_num(y2) +
         "\" marker-end=\"url(#arrow)\"><title>" + xml_escape(e.label) + "</title></path>\n";
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const graph_node& n = g.nodes[i];
    const auto& b = l.boxes[i];
    std::string line1 = "#";  // appended: "#" + std::to_string() trips GCC 12's -Wrestrict at -O3
    line1 += std::to_string(n.seq);
    line1 += ' ';
    line1 += n.name;
    std::string line2 = n.type;
    if (!n.outputs.empty()) {
      if (!line2.empty()) line2 += "  ";
      line2 += n.outputs[0].dtype + n.outputs[0].shape;
    }
    o += "<g class=\"node\"><a href=\"#op" + std::to_string(n.seq) + "\"><rect x=\"" + fmt_num(b.x) + "\" y=\"" +
         fmt_num(b.y) + "\" width=\"" + fmt_num(b.w) + "\" height=\"" + fmt_num(b.h) +
         "\" rx=\"6\"/><text x=\"" + fmt_num(b.x + 8) + "\" y=\"" + fmt_num(b.y + 21) + "\">" +
         xml_escape(clip_label(line1, b.w - 16)) + "</text><text class=\"sub\" x=\"" + fmt_num(b.x + 8) +
         "\" y=\"" + fmt_num(b.y + 40) + "\">" + xml_escape(clip_label(line2, b.w - 16)) +
         "</text><title>" + xml_escape(line1 + (n.type.empty() ? "" : " (" + n.type + ")")) +
         "</title></a></g>\n";
  }
  o += "</svg>\n";
  return o;
}

PROBE_API std::string render_graph_html(const dataflow_graph& g, const std::string& title) {
  std::string o =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + xml_escape(title) +
      "</title>\n<style>\n"
      "body{font:14px/1.4 -apple-system,Helvetica,Arial,sans-serif;margin:24px;color:#1d2733}\n"
      "h1{font-size:20px}.graph{border:1px solid #d5dbe3;border-radius:8px;background:#fbfcfe}\n"
      ".node rect{fill:#eef3fb;stroke:#6b86b3}.node text{font-size:11px;fill:#1d2733}\n"
      ".node text.sub{fill:#5a6676}.edge{fill:none;stroke:#556070;stroke-width:1.2}\n"
      "table{border-collapse:collapse;margin-top:20px}td,th{border:1px solid #d5dbe3;padding:3px 8px;"
      "text-align:left;vertical-align:top;font-size:12px}th{background:#eef3fb}\n"
      "code{font-family:Menlo,Consolas,monospace;font-size:12px}.wrap{overflow:auto}\n"
      "</style></head><body>\n<h1>" + xml_escape(title) + "</h1>\n<p>" + std::to_string(g.nodes.size()) +
      " op executions, " + std::to_string(g.edges.size()) + " data-flow edges";
  if (g.dropped_nodes) o += "; " + std::to_string(g.dropped_nodes) + " later executions not drawn";
  o += ".</p>\n<div class=\"wrap\">\n" + render_graph_svg(g) +
       "</div>\n<table>\n<tr><th>seq</th><th>op</th><th>type</th><th>step</th><th>inputs</th><th>outputs</th></tr>\n";
  for (const graph_node& n : g.nodes) {
    o += "<tr id=\"op" + std::to_string(n.seq) + "\"><td>" + std::to_string(n.seq) + "</td><td>" +
         xml_escape(n.name) + "#" + std::to_string(n.occurrence) + "</td><td>" + xml_escape(n.type) +
         "</td><td>" + std::to_string(n.step) + "</td><td>";
    for (const graph_tensor& t : n.inputs) {
      o += "<code>" + xml_escape(t.slot) + "</code> " + xml_escape(t.dtype + t.shape);
      if (!t.producer.empty()) o += " &larr; <code>" + xml_escape(t.producer) + "</code>";
      o += "<br>";
    }
    o += "</td><td>";
    for (const graph_tensor& t : n.outputs) {
      o += "<code>" + xml_escape(t.slot) + "</code> " + xml_escape(t.dtype + t.shape);
      if (!t.stats.empty()) o += " <small>" + xml_escape(t.stats) + "</small>";
      o += "<br>";
    }
    o += "</td></tr>\n";
  }
  o += "</table>\n</body></html>\n";
  return o;
}

}  // namespace detail
PROBE_END_NAMESPACE
