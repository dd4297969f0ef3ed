// The engine's IR at compiler passes: which stages are written, under which names, with
// which manifest records, and what is skipped.
#include <doctest/doctest.h>

#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../dump/dump_fixture.hpp"

using dump_test::flags_scope;
using dump_test::manifest_lines;
using dump_test::read_file;
using probe_test::temp_dir;

namespace {

std::vector<std::string> ir_files(const std::string& d) {
  std::vector<std::string> out;
  if (DIR* dir = opendir(d.c_str())) {
    while (dirent* e = readdir(dir))
      if (std::string(e->d_name).compare(0, 7, "module_") == 0) out.push_back(e->d_name);
    closedir(dir);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> ir_records(const std::string& d) {
  std::vector<std::string> out;
  for (const std::string& l : manifest_lines(d))
    if (l.find("\"record\":\"ir\"") != std::string::npos) out.push_back(l);
  return out;
}

// A toy graph rewritten by three passes; "noop" changes nothing.
struct toy_compiler {
  std::vector<std::string> ops{"c1 = const 2", "c2 = const 3", "m = mul c1 c2", "y = add x m"};
  int printed = 0;
  std::string text() const {
    std::string s;
    for (const std::string& o : ops) s += o + "\n";
    return s;
  }
  void compile(const char* name) {
    auto printer = [this](probe::ir_out& out) {
      ++printed;
      out << text();
    };
    probe::ir_module m(name, static_cast<int64_t>(ops.size()));
    {
      probe::ir_pass p(m, "fold", printer);
      ops = {"m = const 6", "y = add x m"};
    }
    {
      probe::ir_pass p(m, "noop", printer);
    }
    {
      probe::ir_pass p(m, "fusion", printer);
      ops = {"y = fused_add_const x 6"};
    }
  }
};

}  // namespace

TEST_CASE("ir dump: by default the module as it enters and leaves the pipeline") {
  temp_dir d;
  flags_scope f("--probe_dump_to=" + d.path());
  toy_compiler c;
  c.compile("toy.fwd");
  const std::vector<std::string> files = ir_files(d.path());
  REQUIRE(files.size() == 2);
  CHECK(files[0].find(".toy.fwd.0000.entry.txt") != std::string::npos);
  CHECK(files[1].find(".toy.fwd.0004.exit.txt") != std::string::npos);
  CHECK(read_file(d / files[0]) == "c1 = const 2\nc2 = const 3\nm = mul c1 c2\ny = add x m\n");
  CHECK(read_file(d / files[1]) == "y = fused_add_const x 6\n");
  const std::vector<std::string> recs = ir_records(d.path());
  REQUIRE(recs.size() == 2);
  CHECK(recs[0].find("\"module_name\":\"toy.fwd\",\"ops\":4,\"pass_index\":0,\"pass\":\"entry\",\"stage\":\"entry\"") != std::string::npos);
  CHECK(recs[1].find("\"bytes\":24,\"lines\":1,\"hash\":\"") != std::string::npos);
}

TEST_CASE("ir dump: --probe_dump_pass_re=.* writes after every pass; a pass that changed nothing is recorded, not written") {
  temp_dir d;
  flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_pass_re=.*");
  toy_compiler c;
  c.compile("toy.fwd");
  const std::vector<std::string> files = ir_files(d.path());
  REQUIRE(files.size() == 3);
  CHECK(files[0].find(".0000.entry.txt") != std::string::npos);
  CHECK(files[1].find(".0001.fold.after.txt") != std::string::npos);
  CHECK(files[2].find(".0003.fusion.after.txt") != std::string::npos);
  CHECK(read_file(d / files[1]) == "m = const 6\ny = add x m\n");
  const std::vector<std::string> recs = ir_records(d.path());
  REQUIRE(recs.size() == 5);  // entry, fold, noop (unchanged), fusion, exit (unchanged)
  CHECK(recs[2].find("\"pass\":\"noop\",\"stage\":\"after\",\"changed\":false,\"file\":null,\"same_as\":\"" + files[1] + "\"") !=
        std::string::npos);
  CHECK(recs[4].find("\"stage\":\"exit\",\"changed\":false") != std::string::npos);
  CHECK(recs[3].find("\"changed\":true") != std::string::npos);
}

TEST_CASE("ir dump: --probe_dump_pass_re selects passes; a pass whose input was not written gets it written as the pass before's output") {
  temp_dir d;
  flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_pass_re=fusion|noop");
  toy_compiler c;
  c.compile("toy.fwd");
  const std::vector<std::string> files = ir_files(d.path());
  // The exit is fusion's output: recorded, not written again.
  REQUIRE(files.size() == 3);
  CHECK(files[1].find(".0001.fold.after.txt") != std::string::npos);
  CHECK(read_file(d / files[1]) == "m = const 6\ny = add x m\n");
  CHECK(files[2].find(".0003.fusion.after.txt") != std::string::npos);
  const std::vector<std::string> recs = ir_records(d.path());
  REQUIRE(recs.size() == 5);  // entry, fold (noop's input), noop (unchanged), fusion, exit (unchanged)
  CHECK(recs[1].find("\"pass_index\":1,\"pass\":\"fold\",\"stage\":\"after\",\"changed\":null") != std::string::npos);
  CHECK(recs[2].find("\"pass\":\"noop\",\"stage\":\"after\",\"changed\":false") != std::string::npos);
  CHECK(recs[4].find("\"pass_index\":4,\"pass\":\"exit\",\"stage\":\"exit\",\"changed\":false") != std::string::npos);
}

TEST_CASE("ir dump: --probe_dump_module_re and --probe_dump_ir_min_ops skip modules, and nothing is printed for them") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_pass_re=.* --probe_dump_module_re=^keep");
    toy_compiler a, b;
    a.compile("skip.me");
    b.compile("keep.me");
    CHECK(a.printed == 0);
    CHECK(b.printed > 0);
    const std::vector<std::string> files = ir_files(d.path());
    REQUIRE(!files.empty());
    for (const std::string& n : files) CHECK(n.find(".keep.me.") != std::string::npos);
  }
  temp_dir d2;
  {
    flags_scope f("--probe_dump_to=" + d2.path() + " --probe_dump_ir_min_ops=5");
    toy_compiler small;
    small.compile("small");  // 4 ops
    CHECK(small.printed == 0);
    CHECK(ir_files(d2.path()).empty());
  }
}

TEST_CASE("ir dump: a module filter that does not compile dumps no module, a pass filter only entry and exit") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_pass_re=.* --probe_dump_module_re=(");
    toy_compiler a;
    a.compile("keep.me");
    CHECK(a.printed == 0);
    CHECK(ir_files(d.path()).empty());
  }
  temp_dir d2;
  {
    flags_scope f("--probe_dump_to=" + d2.path() + " --probe_dump_pass_re=(");
    toy_compiler a;
    a.compile("keep.me");
    const std::vector<std::string> files = ir_files(d2.path());
    REQUIRE(files.size() == 2);
    CHECK(files[0].find(".entry.") != std::string::npos);
    CHECK(files[1].find(".exit.") != std::string::npos);
  }
}

TEST_CASE("ir dump: with dumping off no printer runs and no module has an id") {
  probe::set_flags("");
  toy_compiler c;
  c.compile("toy.fwd");
  CHECK(c.printed == 0);
  probe::ir_module m("x", 3);
  CHECK(m.id() == 0);
}

TEST_CASE("ir dump: a module printer writes the exit stage; graph form as text, DOT and HTML") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_ir_as_text --probe_dump_ir_as_dot --probe_dump_ir_as_html");
    int nodes = 2;
    probe::ir_module m("graph", 2, [&](probe::ir_out& out) {
      out.node("x", "Parameter").attr("shape", "[4]");
      for (int i = 1; i < nodes; ++i) {
        out.node("n" + std::to_string(i), "Relu");
        out.edge(i == 1 ? std::string("x") : "n" + std::to_string(i - 1), "n" + std::to_string(i));
      }
    });
    CHECK(m.id() > 0);
    {
      probe::ir_pass p(m, "grow");
      nodes = 3;
    }
  }
  const std::vector<std::string> files = ir_files(d.path());
  REQUIRE(files.size() == 6);  // entry and exit, three formats each
  std::string text, dot, html;
  for (const std::string& n : files) {
    if (n.find(".0002.exit.txt") != std::string::npos) text = read_file(d / n);
    if (n.find(".0002.exit.dot") != std::string::npos) dot = read_file(d / n);
    if (n.find(".0002.exit.html") != std::string::npos) html = read_file(d / n);
  }
  CHECK(text == "%x = Parameter {shape=[4]}\n%n1 = Relu\n%n2 = Relu\n%x -> %n1\n%n1 -> %n2\n");
  CHECK(dot.find("\"n1\" -> \"n2\";") != std::string::npos);
  CHECK(html.find("<svg") != std::string::npos);
}

TEST_CASE("ir dump: ops run inside a module (probe::ir_run) carry its id in their records and snapshots") {
  temp_dir d;
  uint32_t id = 0;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_snapshots");
    std::vector<float> x(4, 1.0f);
    probe::ir_module m("net", 1, [](probe::ir_out& out) { out << "%y = Relu(%x)\n"; });
    id = m.id();
    REQUIRE(id > 0);
    {
      probe::ir_run run(m);
      probe::op op("inside", "Relu");
      op.input("x", x);
    }
    probe::op op("outside", "Relu");
    op.input("x", x);
  }
  int inside = 0, outside = 0;
  for (const std::string& l : manifest_lines(d.path())) {
    if (l.find("\"op\":\"inside\"") != std::string::npos) inside += l.find(",\"module\":" + std::to_string(id) + ",") != std::string::npos;
    if (l.find("\"op\":\"outside\"") != std::string::npos) outside += l.find("\"module\"") != std::string::npos;
  }
  CHECK(inside == 1);
  CHECK(outside == 0);
  CHECK(read_file(d / "snapshots/op_000001.inside/snapshot.json").find("\"module\":" + std::to_string(id)) != std::string::npos);
}
