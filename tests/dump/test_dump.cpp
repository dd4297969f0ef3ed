#include <doctest/doctest.h>

#include <dirent.h>
#include <sys/stat.h>

#include <atomic>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "dump_fixture.hpp"

using dump_test::check_with_numpy;
using dump_test::count_containing;
using dump_test::diamond_engine;
using dump_test::flags_scope;
using dump_test::manifest_lines;
using dump_test::read_file;
using probe_test::temp_dir;

namespace {
bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}
std::vector<std::string> list_dir(const std::string& d) {
  std::vector<std::string> out;
  if (DIR* dir = opendir(d.c_str())) {
    while (dirent* e = readdir(dir))
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    closedir(dir);
  }
  return out;
}
}  // namespace

TEST_CASE("dump: a diamond over several steps: manifest, npy files, edges, text, graph") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() +
                  " --probe_dump_as_npy --probe_dump_as_text --probe_dump_as_dot --probe_dump_as_html");
    diamond_engine e;
    for (int s = 0; s < 3; ++s) {
      probe::set_step(s);
      e.step(s);
    }
    // Read back one file in C++ too and compare with the engine's buffer. Small files are
    // written by background threads: flush() waits for them.
    probe::flush();
    std::string err;
    probe::tensor t = probe::npy::read(d / "op_000012.join.out.d.npy", &err);
    REQUIRE_MESSAGE(!t.empty(), err);
    REQUIRE(t.numel() == 64);
    for (int i = 0; i < 64; ++i) CHECK(t.data_as<float>()[i] == e.d[static_cast<size_t>(i)]);
  }
  // 3 steps x (embed 2 + left 2 + right 2 + join 3) tensors.
  const std::string expect = R"({"records": 27, "end": true, "files": true, "edges": {
      "embed#0/in/x": null, "left#0/in/a": "embed#0/out/a", "right#1/in/a": "embed#1/out/a",
      "join#2/in/b": "left#2/out/b", "join#2/in/c": "right#2/out/c"}})";
  CHECK(check_with_numpy(d.path(), expect) == 0);

  const auto lines = manifest_lines(d.path());
  CHECK(count_containing(lines, "\"step\":2") == 9);
  CHECK(count_containing(lines, "\"stage\":\"before\"") == 15);

  const std::string text = read_file(d / "op_000004.join.txt");
  CHECK(text.find("op 4 join [Add] step 0 #0") != std::string::npos);
  CHECK(text.find("in  b: float32[64]  from left#0/out/b") != std::string::npos);
  CHECK(text.find("out d: float32[64]") != std::string::npos);
  CHECK(text.find("mean") != std::string::npos);
  CHECK(text.find("nan 0") != std::string::npos);
  // Statistics read as `probe show` prints them: six significant digits at most.
  {
    std::istringstream in(text.substr(text.find("\n    min ") + 1));
    std::string word, number;
    int numbers = 0;
    for (int k = 0; k < 4 && in >> word >> number; ++k, ++numbers) {
      INFO(word << " " << number);
      CHECK(number == [&] {
        char b[32];
        snprintf(b, sizeof b, "%.6g", std::stod(number));
        return std::string(b);
      }());
    }
    CHECK(numbers == 4);
  }

  const std::string svg = d / "graph.svg";
  REQUIRE(std::system(("dot -Tsvg '" + (d / "graph.dot") + "' -o '" + svg + "'").c_str()) == 0);
  CHECK(read_file(svg).find("join") != std::string::npos);
  const std::string html = read_file(d / "graph.html");
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("12 op executions") != std::string::npos);
}

TEST_CASE("dump: filters on op name, type and stage (partial match)") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_op_re=ef|oi");
    diamond_engine e;
    e.step(0);
  }
  auto lines = manifest_lines(d.path());
  CHECK(count_containing(lines, "\"op\":\"left\"") == 2);
  CHECK(count_containing(lines, "\"op\":\"join\"") == 3);
  CHECK(count_containing(lines, "\"op\":\"embed\"") == 0);
  CHECK(count_containing(lines, "\"op\":\"right\"") == 0);
  CHECK(check_with_numpy(d.path(), R"({"records": 5})") == 0);

  temp_dir d2;
  {
    flags_scope f("--probe_dump_to=" + d2.path() + " --probe_dump_type_re=^Neg$ --probe_dump_stage_re=after");
    diamond_engine e;
    e.step(0);
  }
  lines = manifest_lines(d2.path());
  CHECK(count_containing(lines, "\"record\":\"tensor\"") == 1);
  CHECK(count_containing(lines, "\"key\":\"right#0/out/c\"") == 1);
}

TEST_CASE("dump: exclusion filters leave out what they match") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_op_exclude_re=^(embed|ri) --probe_dump_slot_exclude_re=^b$");
    diamond_engine e;
    e.step(0);
  }
  const auto lines = manifest_lines(d.path());
  CHECK(count_containing(lines, "\"op\":\"embed\"") == 0);
  CHECK(count_containing(lines, "\"op\":\"right\"") == 0);
  CHECK(count_containing(lines, "\"op\":\"left\"") == 1);  // its slot b left out
  CHECK(count_containing(lines, "\"op\":\"join\"") == 2);
  CHECK(count_containing(lines, "\"slot\":\"b\"") == 0);
  temp_dir d2;
  {
    flags_scope f("--probe_dump_to=" + d2.path() + " --probe_dump_op_re=e --probe_dump_type_exclude_re=Relu");
    diamond_engine e;
    e.step(0);
  }
  const auto lines2 = manifest_lines(d2.path());
  CHECK(count_containing(lines2, "\"op\":\"left\"") == 0);
  CHECK(count_containing(lines2, "\"op\":\"embed\"") > 0);
}

TEST_CASE("dump: a filter that cannot be read selects nothing, with one message") {
  struct one {
    const char* flag;
    const char* says;
  };
  for (const one& c : {one{"--probe_dump_op_re=^(?!scale)", "use --probe_dump_op_exclude_re"},
                       one{"--probe_dump_type_re=(", "missing ')'"},
                       one{"--probe_dump_slot_exclude_re=[", "nothing is dumped"},
                       one{"--probe_dump_steps=1..4", "nothing is dumped"}}) {
    INFO(c.flag);
    temp_dir d;
    probe_test::capture_fd err(2);
    {
      flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy " + c.flag);
      diamond_engine e;
      e.step(0);
    }
    const std::string said = err.stop();
    CHECK(said.find(c.says) != std::string::npos);
    CHECK(said.find("nothing is dumped") != std::string::npos);
    CHECK(count_containing(manifest_lines(d.path()), "\"record\":\"tensor\"") == 0);
  }
}

TEST_CASE("dump: budgets stop dumping with one message and a manifest record") {
  temp_dir d;
  std::string err;
  {
    probe_test::capture_fd cap;
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_max_ops=3");
    diamond_engine e;
    e.step(0);
    e.step(1);
    f.close_run();
    err = cap.stop();
  }
  auto lines = manifest_lines(d.path());
  CHECK(count_containing(lines, "\"record\":\"tensor\"") == 6);  // embed, left, right
  CHECK(count_containing(lines, "\"record\":\"budget\"") == 1);
  CHECK(count_containing(lines, "--probe_dump_max_ops=3 reached") == 1);
  CHECK(err.find("dumping stopped at op 4") != std::string::npos);
  CHECK(check_with_numpy(d.path(), R"({"records": 6})") == 0);

  temp_dir d2;
  {
    probe_test::capture_fd cap;
    // 64 floats = 256 bytes per tensor: 1000 bytes hold three.
    flags_scope f("--probe_dump_to=" + d2.path() + " --probe_dump_as_npy --probe_dump_max_bytes=1000");
    diamond_engine e;
    e.step(0);
    f.close_run();
    err = cap.stop();
  }
  lines = manifest_lines(d2.path());
  CHECK(count_containing(lines, "\"record\":\"tensor\"") == 3);
  CHECK(count_containing(lines, "max_bytes=1000 reached") == 1);
  CHECK(err.find("dumping stopped") != std::string::npos);
}

TEST_CASE("dump: stdout mode wraps each text file in marker lines") {
  std::string out;
  {
    probe_test::capture_fd cap(1);
    flags_scope f("--probe_dump_to=-");
    diamond_engine e;
    e.step(0);
    f.close_run();
    out = cap.stop();
  }
  CHECK(out.find("==== probe begin op_000001.embed.txt ====\nop 1 embed [Embed]") != std::string::npos);
  CHECK(out.find("==== probe end op_000004.join.txt ====") != std::string::npos);
  CHECK(count_containing({out}, "begin") == 1);
}

TEST_CASE("dump: stats only writes the manifest with stats and no tensor files") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only");
    diamond_engine e;
    e.x[3] = std::nanf("");
    e.step(0);
  }
  for (const auto& name : list_dir(d.path())) CHECK(name.find(".npy") == std::string::npos);
  auto lines = manifest_lines(d.path());
  CHECK(count_containing(lines, "\"file\":null") == 9);
  CHECK(count_containing(lines, "\"nan\":1") >= 2);  // x and everything computed from it
  CHECK(check_with_numpy(d.path(), R"({"records": 9, "files": false})") == 0);
}

TEST_CASE("dump: snapshots keep inputs even when the op throws") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_snapshots");
    std::vector<float> x(16, 1.5f), y(16);
    try {
      probe::op op("explode", "Bad");
      op.input("x", x);
      throw std::runtime_error("kernel failed");
    } catch (const std::exception&) {
    }
    probe::op ok("fine", "Good");
    ok.input("x", x);
    ok.output("y", y);
  }
  const std::string snap = d / "snapshots/op_000001.explode";
  CHECK(exists(snap + "/in.x.npy"));
  const std::string js = read_file(snap + "/snapshot.json");
  CHECK(js.find("\"status\":\"exception\"") != std::string::npos);
  CHECK(js.find("\"file\":\"in.x.npy\"") != std::string::npos);
  const std::string js2 = read_file(d / "snapshots/op_000002.fine/snapshot.json");
  CHECK(js2.find("\"status\":\"complete\"") != std::string::npos);
  CHECK(js2.find("\"outputs\":[{\"slot\":\"y\"") != std::string::npos);
  std::string err;
  probe::tensor t = probe::npy::read(snap + "/in.x.npy", &err);
  REQUIRE_MESSAGE(!t.empty(), err);
  CHECK(t.data_as<float>()[7] == 1.5f);
}

TEST_CASE("dump: hostile names stay inside the dump directory") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_dump_as_text");
    float v[4] = {1, 2, 3, 4};
    for (std::string name : {std::string("../../escape"), std::string("/abs/path"), std::string(10000, 'n'),
                             std::string("Ω ünïcode ✓"), std::string("a\nb\tc"), std::string()}) {
      probe::op op(name, "Hostile/../type");
      op.input("../slot", probe::view(v, 4));
      op.output(std::string(5000, 's').c_str(), probe::view(v, 4));
    }
  }
  const auto files = list_dir(d.path());
  int npy = 0;
  for (const auto& f : files) {
    CHECK(f.size() <= 255);
    CHECK(f.find('/') == std::string::npos);
    npy += f.size() > 4 && f.compare(f.size() - 4, 4, ".npy") == 0;
  }
  CHECK(npy == 7);  // the input is the same buffer each time: written once
  CHECK_FALSE(exists(d / "../escape"));
  CHECK(check_with_numpy(d.path(), R"({"records": 12})") == 0);
  CHECK(count_containing(manifest_lines(d.path()), "\"op\":\"../../escape\"") == 2);  // raw name kept in JSON
  // The text dump shows the control characters escaped: one op, one header line.
  std::string text;
  for (const auto& f : files)
    if (f.compare(0, 10, "op_000005.") == 0 && f.size() > 4 && f.compare(f.size() - 4, 4, ".txt") == 0)
      text = read_file(d / f);
  CHECK(text.rfind("op 5 a\\nb\\tc [Hostile/../type] step", 0) == 0);
  CHECK(text.find('\t') == std::string::npos);
}

TEST_CASE("dump: names that are not UTF-8 are counted as they read, so no two ops share a key") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy");
    float x[3] = {1, 2, 3}, y[3] = {4, 5, 6};
    for (const char* name : {"w\xff", "w\xfe"}) {  // Latin-1 bytes: both read as "w\ufffd"
      probe::op op(name, "Lin");
      op.input("x", probe::view(x, 3));
      op.output("y", probe::view(y, 3));
    }
  }
  const auto lines = manifest_lines(d.path());
  CHECK(count_containing(lines, "\"key\":\"w\xef\xbf\xbd#0/out/y\"") == 1);
  CHECK(count_containing(lines, "\"key\":\"w\xef\xbf\xbd#1/out/y\"") == 1);
  CHECK(std::system(("/usr/bin/python3 " PROBE_TEST_SOURCE_DIR "/../scripts/check_dump.py '" + d.path() + "' >/dev/null").c_str()) == 0);
}

TEST_CASE("dump: an unwritable directory gives one message; results stay correct") {
  temp_dir d;
  const std::string file = d / "plain_file";
  std::ofstream(file) << "x";
  std::string err;
  diamond_engine e;
  {
    probe_test::capture_fd cap;
    flags_scope f("--probe_dump_to=" + file + "/sub --probe_dump_as_npy");
    e.step(0);
    e.step(1);
    err = cap.stop();
  }
  CHECK(count_containing({err}, "dumping turned off") == 1);
  CHECK(err.find("Not a directory") != std::string::npos);
  CHECK(e.d[5] == (e.b[5] + e.c[5]));
}

TEST_CASE("dump: the directory removed mid-run turns dumping off cleanly") {
  temp_dir d;
  std::string err;
  {
    probe_test::capture_fd cap;
    flags_scope f("--probe_dump_to=" + (d / "run") + " --probe_dump_as_npy");
    diamond_engine e;
    e.step(0);
    probe::flush();  // no writer still making step 0's files while the folder is removed
    REQUIRE(std::system(("rm -rf '" + (d / "run") + "'").c_str()) == 0);
    e.step(1);
    e.step(2);
    probe::flush();  // the background writers meet the error
    err = cap.stop();
  }
  CHECK(count_containing({err}, "dumping turned off") == 1);
}

TEST_CASE("dump: 8 threads x 2000 ops lose no record and tear no line") {
  temp_dir d;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_stats_only");
    std::vector<std::thread> ts;
    for (int t = 0; t < 8; ++t)
      ts.emplace_back([t] {
        float v[8] = {};
        const std::string name = "t" + std::to_string(t);
        for (int i = 0; i < 2000; ++i) {
          probe::op op(name, "Work");
          op.input("x", probe::view(v, 8));
          v[i % 8] += 1;
          op.output("y", probe::view(v, 8));
        }
      });
    for (auto& t : ts) t.join();
  }
  const auto lines = manifest_lines(d.path());
  CHECK(count_containing(lines, "\"record\":\"tensor\"") == 32000);
  std::set<std::string> keys;
  std::set<std::pair<std::string, std::string>> seq_op;  // (seq, key without io/slot)
  for (const auto& l : lines) {
    CHECK((l.front() == '{' && l.back() == '}'));
    const size_t k = l.find("\"key\":\"");
    if (k == std::string::npos) continue;
    const std::string key = l.substr(k + 7, l.find('"', k + 7) - k - 7);
    keys.insert(key);
    const size_t s = l.find("\"seq\":");
    REQUIRE(s != std::string::npos);
    seq_op.insert({l.substr(s + 6, l.find(',', s) - s - 6), key.substr(0, key.find('/'))});
  }
  CHECK(keys.size() == 32000);
  // 16000 op executions, each with its own sequence number shared by its input and output
  std::set<std::string> seqs;
  for (const auto& p : seq_op) seqs.insert(p.first);
  CHECK(seq_op.size() == 16000);
  CHECK(seqs.size() == 16000);
  CHECK(check_with_numpy(d.path(), R"({"records": 32000})") == 0);
}

TEST_CASE("dump: a large tensor's stats computed beside the file write agree with numpy") {
  temp_dir d;
  std::vector<float> big(6 << 20);  // 24 MiB: statistics run on the helper thread
  for (size_t i = 0; i < big.size(); ++i) big[i] = 1000.f + static_cast<float>(i % 977) * 0.01f;
  big[12345] = std::nanf("");
  big[5 << 20] = -INFINITY;
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy");
    probe::op op("big", "Fill");
    op.output("y", probe::view(big.data(), {6, 1 << 20}));
  }
  CHECK(check_with_numpy(d.path(), R"({"records": 1})") == 0);
  const auto lines = manifest_lines(d.path());
  CHECK(count_containing(lines, "\"nan\":1,\"posinf\":0,\"neginf\":1") == 1);
}

TEST_CASE("dump: explicit links, outputs read at scope end, device views without a backend") {
  temp_dir d;
  std::vector<float> staged(8, 0.f), out(8, 0.f);
  auto* saved = probe::detail::get_device_access(probe::device::cuda);
  probe::detail::set_device_access(probe::device::cuda, nullptr);
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy");
    {
      probe::op a("upload", "Copy");
      a.output_at_end("y", out);  // the view now, the values when the scope ends
      for (float& v : out) v = 3.f;
    }
    {
      probe::op b("kernel", "Custom");
      b.link("x", "upload#0/out/y");    // a buffer the engine copied: matching cannot see it
      b.input("x", staged);
      b.input("dev", probe::view(out.data(), {8}).on_cuda(0));
      b.output("z", staged);
    }
  }
  probe::detail::set_device_access(probe::device::cuda, saved);
  const auto lines = manifest_lines(d.path());
  CHECK(count_containing(lines, "\"key\":\"kernel#0/in/x\",\"producer\":\"upload#0/out/y\"") == 1);
  CHECK(count_containing(lines, "\"device\":\"cuda:0\"") == 1);
  CHECK(count_containing(lines, "\"stats\":null,\"note\":\"cannot read device memory") == 1);
  CHECK(count_containing(lines, "\"slot\":\"y\",\"key\":\"upload#0/out/y\"") == 1);
  std::string err;
  probe::tensor t = probe::npy::read(d / "op_000001.upload.out.y.npy", &err);
  REQUIRE_MESSAGE(!t.empty(), err);
  CHECK(t.data_as<float>()[5] == 3.f);  // read after the loop, not when output_at_end was called
  CHECK(check_with_numpy(d.path(), R"({"records": 4})") == 0);
}

TEST_CASE("dump: a link after its input says it is ignored; output_at_end keeps a batch's pointer array") {
  temp_dir d;
  std::vector<float> s0(4, 1.f), s1(4, 2.f);
  probe_test::capture_fd err(2);
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy");
    {
      probe::op b("late", "Custom");
      b.input("x", s0);
      b.link("x", "upload#0/out/y");
    }
    {
      probe::op g("gather", "Gather");
      {
        // An adapter's pointer array, gone before the op ends.
        std::vector<const float*> pointers{s0.data(), s1.data()};
        g.output_at_end("y", probe::batch_view(pointers, probe::view(static_cast<const float*>(nullptr), {4})));
        pointers.assign(2, nullptr);
      }
      s1[3] = 7.f;  // the samples are read at the end
    }
  }
  const std::string said = err.stop();
  CHECK(said.find("link('x', 'upload#0/out/y') comes after input('x')") != std::string::npos);
  std::string why;
  probe::tensor t = probe::npy::read(d / "op_000002.gather.out.y.npy", &why);
  REQUIRE_MESSAGE(!t.empty(), why);
  CHECK(t.data_as<float>()[0] == 1.f);
  CHECK(t.data_as<float>()[7] == 7.f);
}

TEST_CASE("dump: inout keeps a batch's pointer array for its output half, as output_at_end does") {
  temp_dir d;
  std::vector<float> s0(4, 1.f), s1(4, 2.f);
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy");
    probe::op u("update", "Update");
    {
      // An adapter's pointer array, gone (here: cleared) before the op ends.
      std::vector<const float*> pointers{s0.data(), s1.data()};
      u.inout("z", probe::batch_view(pointers, probe::view(static_cast<const float*>(nullptr), {4})));
      pointers.assign(2, nullptr);
    }
    s1[2] = 9.f;  // the kernel: the output half reads the samples at the end
  }
  std::string why;
  probe::tensor before = probe::npy::read(d / "op_000001.update.in.z.npy", &why);
  REQUIRE_MESSAGE(!before.empty(), why);
  CHECK(before.data_as<float>()[6] == 2.f);
  probe::tensor after = probe::npy::read(d / "op_000001.update.out.z.npy", &why);
  REQUIRE_MESSAGE(!after.empty(), why);
  CHECK(after.data_as<float>()[0] == 1.f);
  CHECK(after.data_as<float>()[6] == 9.f);
}

TEST_CASE("dump: nested ops name their parent; threads, steps and wrap's tensors are recorded") {
  temp_dir d;
  std::vector<float> x(12), y(12, 0.f), z(12, 0.f);
  for (int i = 0; i < 12; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i);
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy");
    probe::set_step(5);
    {
      probe::op outer("outer", "Block");
      outer.input("x", x);
      {
        probe::op inner("inner", "Leaf");
        inner.input("s", probe::view(x.data(), {3, 2}, {4, 2}));  // every other element of rows 0, 4, 8
        for (int i = 0; i < 12; ++i) y[static_cast<size_t>(i)] = 2 * x[static_cast<size_t>(i)];
        inner.output("y", y);
      }
    }
    CHECK(probe::next_step() == 6);
    probe::wrap("copy", [](const std::vector<float>& a, std::vector<float>& b) { b = a; }, probe::in("a", y),
                probe::out("b", z));
    std::thread([&] {
      probe::op t("on_thread", "Work");
      t.input("z", z);
    }).join();
  }
  const auto lines = manifest_lines(d.path());
  CHECK(count_containing(lines, "\"seq\":1,\"step\":5,\"op\":\"outer\",\"type\":\"Block\",\"occurrence\":0,\"parent\":null,"
                                "\"thread\":0") == 1);
  CHECK(count_containing(lines, "\"op\":\"inner\",\"type\":\"Leaf\",\"occurrence\":0,\"parent\":1,") == 2);
  // x has no producer: the nested op's view of it says where it lies in outer's input
  CHECK(count_containing(lines, "\"key\":\"inner#0/in/s\",\"producer\":null,\"within\":{\"key\":\"outer#0/in/x\",\"at\":0},"
                                "\"dtype\":\"float32\",\"shape\":[3,2],\"strides\":[4,2]") == 1);
  CHECK(count_containing(lines, "\"step\":6,\"op\":\"copy\"") == 2);
  CHECK(count_containing(lines, "\"key\":\"copy#0/in/a\",\"producer\":\"inner#0/out/y\"") == 1);
  CHECK(count_containing(lines, "\"slot\":\"b\",\"key\":\"copy#0/out/b\"") == 1);
  CHECK(count_containing(lines, "\"key\":\"on_thread#0/in/z\",\"producer\":\"copy#0/out/b\"") == 1);
  CHECK(count_containing(lines, "\"op\":\"on_thread\",\"type\":\"Work\",\"occurrence\":0,\"parent\":null,\"thread\":0") == 0);
  std::string err;
  probe::tensor s = probe::npy::read(d / "op_000002.inner.in.s.npy", &err);
  REQUIRE_MESSAGE(!s.empty(), err);
  const float want[6] = {0, 2, 4, 6, 8, 10};  // the strided view, written contiguous
  for (int i = 0; i < 6; ++i) CHECK(s.data_as<float>()[i] == want[i]);
  probe::tensor b = probe::npy::read(d / "op_000003.copy.out.b.npy", &err);
  REQUIRE_MESSAGE(!b.empty(), err);
  CHECK(b.data_as<float>()[11] == 22.f);  // recorded after fn ran
  CHECK(check_with_numpy(d.path(), R"({"records": 6})") == 0);
}
