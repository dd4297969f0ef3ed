#include <doctest/doctest.h>
#include <probe/formats/dot.hpp>
#include <probe/formats/graph_html.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "../support/capture.hpp"

namespace {
// a -> b, a -> c, (b, c) -> d: a diamond.
probe::detail::dataflow_graph diamond() {
  using probe::detail::graph_node;
  probe::detail::dataflow_graph g;
  auto node = [](uint64_t seq, const char* name, std::vector<std::string> ins) {
    graph_node n;
    n.seq = seq;
    n.name = name;
    n.type = "Op\"quoted\"";
    for (auto& p : ins) n.inputs.push_back({"x", "float32", "[4]", p, "", {}});
    n.outputs.push_back({"y", "float32", "[4]", "", "min 0 max 1", {}});
    return n;
  };
  g.nodes.push_back(node(1, "a", {""}));
  g.nodes.push_back(node(2, "b<1>", {"a#0/out/y"}));
  g.nodes.push_back(node(3, "c", {"a#0/out/y"}));
  g.nodes.push_back(node(4, "d", {"b<1>#0/out/y", "c#0/out/y", "missing#0/out/y"}));
  g.link();
  return g;
}
}  // namespace

TEST_CASE("graph: producer keys become edges") {
  auto g = diamond();
  REQUIRE(g.edges.size() == 4);
  CHECK(g.edges[0].from == 0);
  CHECK(g.edges[0].to == 1);
  CHECK(g.edges[3].from == 2);
  CHECK(g.edges[3].to == 3);
  auto l = probe::detail::layout_graph(g);
  CHECK(l.boxes[0].y < l.boxes[1].y);
  CHECK(l.boxes[1].y == l.boxes[2].y);  // b and c share a layer
  CHECK(l.boxes[3].y > l.boxes[1].y);
}

TEST_CASE("graph: an input written in pieces by several ops has an edge from each") {
  probe::detail::dataflow_graph g;
  auto node = [](uint64_t seq, const char* name, uint64_t occ) {
    probe::detail::graph_node n;
    n.seq = seq;
    n.name = name;
    n.occurrence = occ;
    n.outputs.push_back({"k", "float32", "[1,8]", "", "", {}});
    return n;
  };
  for (uint64_t i = 0; i < 3; ++i) g.nodes.push_back(node(i + 1, "kv", i));
  probe::detail::graph_node attn;
  attn.seq = 4;
  attn.name = "attn";
  attn.inputs.push_back({"k", "float32", "[3,8]", "kv#2/out/k", "", {"kv#0/out/k", "kv#1/out/k", "kv#2/out/k"}});
  g.nodes.push_back(attn);
  g.link();
  REQUIRE(g.edges.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(g.edges[i].from == i);
    CHECK(g.edges[i].to == 3);
  }
}

TEST_CASE("graph: an edge names the producer's whole slot, '/' and all") {
  probe::detail::dataflow_graph g;
  probe::detail::graph_node a, b;
  a.seq = 1;
  a.name = "enc/layer.0";
  a.occurrence = 12;
  a.outputs.push_back({"dense/kernel", "float32", "[4]", "", "", {}});
  b.seq = 2;
  b.name = "b";
  b.inputs.push_back({"w/in", "float32", "[4]", "enc/layer.0#12/out/dense/kernel", "", {}});
  g.nodes.push_back(a);
  g.nodes.push_back(b);
  g.link();
  REQUIRE(g.edges.size() == 1);
  CHECK(g.edges[0].label == "dense/kernel -> w/in");
}

TEST_CASE("graph: DOT renders with graphviz") {
  probe_test::temp_dir d;
  const std::string dot = probe::detail::render_dot(diamond());
  CHECK(dot.find("n1 -> n2") != std::string::npos);
  CHECK(dot.find("Op\\\"quoted\\\"") != std::string::npos);
  std::ofstream(d / "g.dot") << dot;
  const std::string cmd = "dot -Tsvg '" + (d / "g.dot") + "' -o '" + (d / "g.svg") + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream svg(d / "g.svg");
  std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  CHECK(text.find("<svg") != std::string::npos);
  CHECK(text.find("b&lt;1&gt;") != std::string::npos);
}

TEST_CASE("graph: HTML page is well-formed XML in its SVG and escapes names") {
  probe_test::temp_dir d;
  const std::string html = probe::detail::render_graph_html(diamond(), "dump <test>");
  CHECK(html.find("<title>dump &lt;test&gt;</title>") != std::string::npos);
  CHECK(html.find("http-equiv") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  const std::string svg = probe::detail::render_graph_svg(diamond());
  std::ofstream(d / "g.svg") << svg;
  const std::string check = std::string(PROBE_TEST_PYTHON) +
                            " -c \"import sys,xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot();"
                            " ns='{http://www.w3.org/2000/svg}'; n=len(r.findall('.//'+ns+'rect'));"
                            " e=len(r.findall('.//'+ns+'path'))-1; sys.exit(0 if (n,e)==(4,4) else 1)\" '" +
                            (d / "g.svg") + "'";
  CHECK(std::system(check.c_str()) == 0);
}

TEST_CASE("graph: names that are not UTF-8, or long multi-byte ones, give valid text in every format") {
  probe_test::temp_dir d;
  auto g = diamond();
  g.nodes[0].name = "bad\xff\xc3(\xed\xa0\x80\x1b[1m";              // stray, truncated, surrogate, ESC
  g.nodes[1].name = "\xce\xa9" + std::string(60, 'x');             // clipped after a 2-byte character...
  g.nodes[2].name = "x" + std::string(40, '\0') + "y";
  for (int i = 0; i < 40; ++i) g.nodes[2].name += "\xce\xa9";      // ...and in the middle of a run of them
  g.nodes[3].outputs[0].slot = "\xf4\x90\x80\x80";                 // past U+10FFFF
  CHECK(probe::detail::graph_text("ok \xce\xa9 \xff.") == "ok \xce\xa9 \xef\xbf\xbd.");
  std::ofstream(d / "g.dot", std::ios::binary) << probe::detail::render_dot(g);
  std::ofstream(d / "g.svg", std::ios::binary) << probe::detail::render_graph_svg(g);
  std::ofstream(d / "g.html", std::ios::binary) << probe::detail::render_graph_html(g, "t\xff");
  const std::string check = std::string(PROBE_TEST_PYTHON) +
                            " -c \"import sys,xml.etree.ElementTree as E; [open(f, encoding='utf-8', errors='strict')"
                            ".read() for f in sys.argv[1:]]; E.parse(sys.argv[2])\" '" +
                            (d / "g.dot") + "' '" + (d / "g.svg") + "' '" + (d / "g.html") + "'";
  CHECK(std::system(check.c_str()) == 0);
  const std::string cmd = "dot -Tsvg '" + (d / "g.dot") + "' -o '" + (d / "g2.svg") + "' 2>'" + (d / "err") + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream err(d / "err");
  CHECK(std::string((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>()).empty());
}

TEST_CASE("graph: DOT labels are capped whatever the engine names things") {
  using probe::detail::graph_node;
  probe::detail::dataflow_graph g;
  graph_node n;
  n.seq = 1;
  n.name = std::string(100000, 'a');
  n.type = std::string(50000, 'T');
  for (int i = 0; i < 2000; ++i) n.outputs.push_back({"y" + std::to_string(i), "float32", "[4]", "", "", {}});
  g.nodes.push_back(n);
  g.link();
  const std::string dot = probe::detail::render_dot(g);
  CHECK(dot.size() < 2048);
  CHECK(dot.find("...\"];") != std::string::npos);
}
