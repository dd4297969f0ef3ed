// The breakpoint prompt, in process: every command and expression form over real op frames,
// with the exact transcript it prints; errors keep the prompt; end of input resumes.
#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/effects/breakpoint_prompt.hpp>
#include <probe/effects/breakpoint_frames.hpp>
#include <probe/core/tensor.hpp>


#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "../support/capture.hpp"

namespace {

void append(void* ctx, const char* text, size_t n) { static_cast<std::string*>(ctx)->append(text, n); }

// Runs the prompt over `stop` with `commands` as its input; returns the transcript.
std::string session(probe::detail::stop_info& stop, const std::string& commands,
                    probe::detail::prompt_action* action = nullptr) {
  std::string out;
  std::string in = commands;
  FILE* f = fmemopen(in.empty() ? nullptr : &in[0], in.size(), "r");
  if (!f) f = std::fopen("/dev/null", "r");
  probe::detail::prompt_io io;
  io.in = f;
  io.echo = true;
  io.write = &append;
  io.ctx = &out;
  io.source_name = "the test";
  const auto a = probe::detail::run_prompt(stop, io);
  if (action) *action = a;
  std::fclose(f);
  return out;
}

// A source file for `list`: line N reads "source line N".
std::string write_source(const probe_test::temp_dir& dir, int lines) {
  const std::string path = dir / "model.cpp";
  std::ofstream out(path);
  for (int i = 1; i <= lines; ++i) out << "source line " << i << "\n";
  return path;
}

struct frames_fixture {
  probe_test::temp_dir dir;
  std::string source;
  std::vector<float> y{1, 2, 3, 4, 5, 6};
  std::vector<int64_t> w{-7, 8};
  std::vector<double> z{0.0, -1.5, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()};
  int step = 7;
  probe::detail::stop_info stop;

  frames_fixture() {
    source = write_source(dir, 30);
    probe::set_flags("--probe_breakpoint=prompt");  // op scopes record: they become frames
    probe::op outer("block", "Block");
    outer.input("x", probe::view(y.data(), {2, 3}));
    {
      probe::op inner("conv1", "Conv");
      inner.input("x", probe::view(y.data(), {3, 2})).output("x", y).output("w", w);
      const probe::var_ref vars[] = {probe::var("y", probe::view(y.data(), {2, 3})), probe::var("step", step),
                                     probe::var("z", z)};
      stop = probe::detail::breakpoint_stop(source.c_str(), 12, "forward", vars, 3);
      stop.reason = "breakpoint at model.cpp:12 in forward()";
      stop.thread = 4;
      stop.tid = 4321;
    }
  }
  ~frames_fixture() { probe::set_flags(""); }
};

}  // namespace

TEST_CASE("prompt: the header, p with every expression form, and continue") {
  frames_fixture fx;
  probe::detail::prompt_action action = probe::detail::prompt_action::quit;
  const std::string out = session(fx.stop,
                                  "p y\n"
                                  "p y[1]\n"
                                  "p y[1, 2]\n"
                                  "p y[-1, -3]\n"
                                  "p y[0:1]\n"
                                  "p y[:, 1:]\n"
                                  "p y[:, ::-1]\n"
                                  "p y[::-1, ::2]\n"
                                  "p y[5:]\n"
                                  "p y[1][1:]\n"
                                  "p y.shape\n"
                                  "p y[0].shape\n"
                                  "p y[0, 0].shape\n"
                                  "p y.dtype\n"
                                  "p step\n"
                                  "p z\n"
                                  "c\n",
                                  &action);
  CHECK(action == probe::detail::prompt_action::resume);
  CHECK(out ==
        "probe: breakpoint at model.cpp:12 in forward() [thread 4, tid 4321, step 0]; 'help' lists the commands\n"
        "-> source line 12\n"
        "(probe) p y\n[[1. 2. 3.]\n [4. 5. 6.]]\n"
        "(probe) p y[1]\n[4. 5. 6.]\n"
        "(probe) p y[1, 2]\n6.0\n"
        "(probe) p y[-1, -3]\n4.0\n"
        "(probe) p y[0:1]\n[[1. 2. 3.]]\n"
        "(probe) p y[:, 1:]\n[[2. 3.]\n [5. 6.]]\n"
        "(probe) p y[:, ::-1]\n[[3. 2. 1.]\n [6. 5. 4.]]\n"
        "(probe) p y[::-1, ::2]\n[[4. 6.]\n [1. 3.]]\n"
        "(probe) p y[5:]\n[]\n"
        "(probe) p y[1][1:]\n[5. 6.]\n"
        "(probe) p y.shape\n(2, 3)\n"
        "(probe) p y[0].shape\n(3,)\n"
        "(probe) p y[0, 0].shape\n()\n"
        "(probe) p y.dtype\nfloat32\n"
        "(probe) p step\n7\n"
        "(probe) p z\n[ 0.  -1.5  nan  inf]\n"
        "(probe) c\n");
}

TEST_CASE("prompt: frames: where, up, down, info in each frame") {
  frames_fixture fx;
  const std::string out = session(fx.stop,
                                  "w\n"
                                  "info\n"
                                  "u\n"
                                  "info\n"
                                  "p x_out\n"
                                  "p w\n"
                                  "up\n"
                                  "p x\n"
                                  "u\n"
                                  "bt\n"
                                  "d 5\n"
                                  "d\n"
                                  "down\n"
                                  "u 2\n"
                                  "where\n"
                                  "cont\n");
  CHECK(out ==
        "probe: breakpoint at model.cpp:12 in forward() [thread 4, tid 4321, step 0]; 'help' lists the commands\n"
        "-> source line 12\n"
        "(probe) w\n"
        "  #2 op block (Block) seq 1, step 0\n"
        "  #1 op conv1 (Conv) seq 2, step 0\n"
        "> #0 breakpoint at " + fx.source + ":12 in forward()\n"
        "(probe) info\n"
        "frame #0 breakpoint at " + fx.source + ":12 in forward():\n"
        "  y     float32[2, 3]  host\n"
        "  step  int32[]        host\n"
        "  z     float64[4]     host\n"
        "(probe) u\n"
        "> #1 op conv1 (Conv) seq 2, step 0\n"
        "(probe) info\n"
        "frame #1 op conv1 (Conv) seq 2, step 0:\n"
        "  x      float32[3, 2]  host\n"
        "  x_out  float32[6]     host\n"
        "  w      int64[2]       host\n"
        "(probe) p x_out\n[1. 2. 3. 4. 5. 6.]\n"
        "(probe) p w\n[-7  8]\n"
        "(probe) up\n"
        "> #2 op block (Block) seq 1, step 0\n"
        "(probe) p x\n[[1. 2. 3.]\n [4. 5. 6.]]\n"
        "(probe) u\n"
        "*** Oldest frame\n"
        "(probe) bt\n"
        "> #2 op block (Block) seq 1, step 0\n"
        "  #1 op conv1 (Conv) seq 2, step 0\n"
        "  #0 breakpoint at " + fx.source + ":12 in forward()\n"
        "(probe) d 5\n"
        "> #0 breakpoint at " + fx.source + ":12 in forward()\n"
        "(probe) d\n"
        "*** Newest frame\n"
        "(probe) down\n"
        "*** Newest frame\n"
        "(probe) u 2\n"
        "> #2 op block (Block) seq 1, step 0\n"
        "(probe) where\n"
        "> #2 op block (Block) seq 1, step 0\n"
        "  #1 op conv1 (Conv) seq 2, step 0\n"
        "  #0 breakpoint at " + fx.source + ":12 in forward()\n"
        "(probe) cont\n");
}

TEST_CASE("prompt: list, list again, the end of the file, and op frames without a location") {
  frames_fixture fx;
  std::string expect =
      "probe: breakpoint at model.cpp:12 in forward() [thread 4, tid 4321, step 0]; 'help' lists the commands\n"
      "-> source line 12\n"
      "(probe) l\n";
  for (int i = 7; i <= 17; ++i) expect += (i < 10 ? "   " : "  ") + std::to_string(i) + (i == 12 ? " ->" : "   ") + "\tsource line " + std::to_string(i) + "\n";
  expect += "(probe) list\n";
  for (int i = 18; i <= 28; ++i) expect += "  " + std::to_string(i) + "   \tsource line " + std::to_string(i) + "\n";
  expect += "(probe) \n";  // an empty line repeats the last command
  for (int i = 29; i <= 30; ++i) expect += "  " + std::to_string(i) + "   \tsource line " + std::to_string(i) + "\n";
  expect += "[EOF]\n(probe) l\n[EOF]\n";
  expect += "(probe) u\n> #1 op conv1 (Conv) seq 2, step 0\n";
  expect += "(probe) l\n*** no source location for this frame (#1 op conv1 (Conv) seq 2, step 0)\n";
  expect += "(probe) c\n";
  CHECK(session(fx.stop, "l\nlist\n\nl\nu\nl\nc\n") == expect);
}

TEST_CASE("prompt: pp prints every element; p summarizes") {
  frames_fixture fx;
  std::vector<int> big(1001);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<int>(i);
  probe::detail::add_var(fx.stop.frames[0], "big", probe::view(big));
  const std::string out = session(fx.stop, "p big\npp big\nc\n");
  CHECK(out.find("(probe) p big\n[   0    1    2 ...  998  999 1000]\n") != std::string::npos);
  const size_t pp = out.find("(probe) pp big\n");
  REQUIRE(pp != std::string::npos);
  const std::string full = out.substr(pp);
  CHECK(full.find("...") == std::string::npos);
  for (int v : {0, 1, 500, 999, 1000}) CHECK(full.find(" " + std::to_string(v) + (v == 1000 ? "]" : "")) != std::string::npos);
}

TEST_CASE("prompt: stats, dump, info NAME") {
  frames_fixture fx;
  const std::string npy = fx.dir / "row.npy";
  const std::string out = session(fx.stop, "stats z\nstats y[1]\ndump y[:, 1] " + npy + "\ninfo y\nc\n");
  CHECK(out.find("(probe) stats z\n"
                 "z: float64[4] count 4, finite 2, nan 1, +inf 1, -inf 0, zero 1, subnormal 0, negative 1, positive 0\n"
                 "  min -1.5, max 0.0, mean -0.75, std 0.75\n") != std::string::npos);
  CHECK(out.find("(probe) stats y[1]\n"
                 "y[1]: float32[3] count 3, finite 3, nan 0, +inf 0, -inf 0, zero 0, subnormal 0, negative 0, positive 3\n"
                 "  min 4.0, max 6.0, mean 5.0, std 0.816496580927726\n") != std::string::npos);
  CHECK(out.find("(probe) dump y[:, 1] " + npy + "\nwrote " + npy + " (float32[2])\n") != std::string::npos);
  std::string err;
  const probe::tensor t = probe::npy::read(npy, &err);
  REQUIRE(err.empty());
  REQUIRE(t.numel() == 2);
  CHECK(t.data_as<float>()[0] == 2.f);
  CHECK(t.data_as<float>()[1] == 5.f);
  CHECK(out.find("(probe) info y\ny: float32[2, 3], strides (3, 1) (elements), host, 0x") != std::string::npos);
}

TEST_CASE("prompt: every error is one line and the prompt stays") {
  frames_fixture fx;
  const std::string out = session(fx.stop,
                                  "frobnicate\n"
                                  "p\n"
                                  "p nothere\n"
                                  "p y[2]\n"
                                  "p y[0, 3]\n"
                                  "p y[1, 1, 1]\n"
                                  "p y[a]\n"
                                  "p y[1:2:0]\n"
                                  "p y[1\n"
                                  "p y.size\n"
                                  "p y[]\n"
                                  "u x\n"
                                  "stats nothere\n"
                                  "dump y\n"
                                  "dump y /nonexistent-dir/y.npy\n"
                                  "info nothere\n"
                                  "p step\n"
                                  "c\n");
  CHECK(out ==
        "probe: breakpoint at model.cpp:12 in forward() [thread 4, tid 4321, step 0]; 'help' lists the commands\n"
        "-> source line 12\n"
        "(probe) frobnicate\n*** unknown command 'frobnicate' (help lists the commands)\n"
        "(probe) p\n*** expected an expression: a name, name[i, j], name[a:b], name.shape or name.dtype\n"
        "(probe) p nothere\n*** name 'nothere' is not defined in this frame (info lists the variables)\n"
        "(probe) p y[2]\n*** index 2 is out of bounds for axis 0 with size 2\n"
        "(probe) p y[0, 3]\n*** index 3 is out of bounds for axis 1 with size 3\n"
        "(probe) p y[1, 1, 1]\n*** too many indices: the tensor is 2-dimensional, but 3 were indexed\n"
        "(probe) p y[a]\n*** bad index 'a' (integers and slices a:b:step only)\n"
        "(probe) p y[1:2:0]\n*** slice step cannot be zero\n"
        "(probe) p y[1\n*** missing ']' in 'y[1'\n"
        "(probe) p y.size\n*** name 'y.size' is not defined in this frame (info lists the variables)\n"
        "(probe) p y[]\n*** empty index\n"
        "(probe) u x\n*** expected a frame count, not 'x'\n"
        "(probe) stats nothere\n*** name 'nothere' is not defined in this frame (info lists the variables)\n"
        "(probe) dump y\n*** usage: dump EXPR FILE.npy\n"
        "(probe) dump y /nonexistent-dir/y.npy\n"
        "*** /nonexistent-dir/y.npy: cannot create a file in its directory: No such file or directory\n"
        "(probe) info nothere\n*** name 'nothere' is not defined in this frame (info lists the variables)\n"
        "(probe) p step\n7\n"
        "(probe) c\n");
}

TEST_CASE("prompt: help, quit and exit end the session with quit; end of input resumes") {
  frames_fixture fx;
  probe::detail::prompt_action action = probe::detail::prompt_action::resume;
  std::string out = session(fx.stop, "help\nq\n", &action);
  CHECK(action == probe::detail::prompt_action::quit);
  CHECK(out.find("(probe) help\nCommands:\n  p EXPR") != std::string::npos);
  CHECK(out.find("q, quit, exit       end the program (exit status 3)") != std::string::npos);
  for (const char* q : {"quit\n", "exit\n"}) {
    action = probe::detail::prompt_action::resume;
    session(fx.stop, q, &action);
    CHECK(action == probe::detail::prompt_action::quit);
  }
  out = session(fx.stop, "p step\n", &action);
  CHECK(action == probe::detail::prompt_action::resume);
  CHECK(out.substr(out.find("(probe) p step")) ==
        "(probe) p step\n7\n(probe) \nprobe: end of input on the test at the breakpoint prompt; continuing\n");
}

TEST_CASE("prompt: a device tensor without a backend is described, and reading it is an error") {
  frames_fixture fx;
  float d[2] = {1, 2};
  probe::detail::add_var(fx.stop.frames[0], "dev", probe::view(d, {2}).on_cuda(0));
  if (probe::detail::get_device_access(probe::device::cuda) == nullptr) {
    const std::string out = session(fx.stop, "info\np dev.shape\np dev\nc\n");
    CHECK(out.find("  dev   float32[2]     cuda:0\n") != std::string::npos);
    CHECK(out.find("(probe) p dev.shape\n(2,)\n") != std::string::npos);
    CHECK(out.find("(probe) p dev\n*** 'dev': cannot copy it from the device: cannot read device memory") !=
          std::string::npos);
  }
}

// An op frame shows what the op recorded, copied at its call: an op that writes its input in
// place, or frees it, before a stop inside it changes nothing the prompt shows.
TEST_CASE("prompt: an op frame shows its tensors as recorded, whatever the program did to them since") {
  probe::set_flags("--probe_breakpoint=prompt");
  std::vector<float> gate{1, 2, 3};
  std::vector<float> bias{0.5f, 0.25f, 2};
  // Pages of their own, unmapped before the stop: reading the program's memory then faults.
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* mem = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mem != MAP_FAILED);
  float* scratch = static_cast<float*>(mem);
  scratch[0] = 7;
  scratch[1] = 8;
  probe::detail::stop_info stop;
  std::string at_stop;
  {
    probe::op act("act", "ReluInplace");
    act.input("gate", gate).input("bias", bias).input("scratch", probe::view(scratch, {2}));
    for (float& g : gate) g = -g;  // the kernel writes its input in place
    REQUIRE(munmap(mem, page) == 0);
    stop = probe::detail::breakpoint_stop("model.cpp", 3, "forward", nullptr, 0);
    stop.reason = "breakpoint";
    at_stop = session(stop, "up\np gate\np scratch\ninfo scratch\nc\n");
  }
  probe::set_flags("");
  CHECK(at_stop.find("(probe) p gate\n[1. 2. 3.]\n") != std::string::npos);
  CHECK(at_stop.find("(probe) p scratch\n[7. 8.]\n") != std::string::npos);
  CHECK(at_stop.find("(probe) info scratch\nscratch: float32[2], strides (1,) (elements), host, " +
                     probe::format("{}", static_cast<const void*>(scratch)) +
                     "; shown: the copy made when the op recorded it\n") != std::string::npos);
  // The stop keeps its own copies: it outlives the op, whose copies are gone.
  CHECK(probe::detail::context().frame_kept_bytes == 0);
  const std::string out = session(stop, "up\np gate\npp gate[1:]\np bias\nstats gate\np gate.shape\nc\n");
  CHECK(out.find("(probe) p gate\n[1. 2. 3.]\n") != std::string::npos);
  CHECK(out.find("(probe) pp gate[1:]\n[2. 3.]\n") != std::string::npos);
  CHECK(out.find("(probe) stats gate\ngate: float32[3]") != std::string::npos);
  CHECK(out.find("(probe) p bias\n[0.5  0.25 2.  ]\n") != std::string::npos);
  CHECK(out.find("(probe) p gate.shape\n(3,)\n") != std::string::npos);
  CHECK(out.find("***") == std::string::npos);
}

// Past the budget, or where no stop could read frames when the op recorded them, a frame
// shows the shape and dtype and never reads the program's memory.
TEST_CASE("prompt: an op tensor that was not copied is described, and reading it says why") {
  std::vector<float> small{1, 2};
  std::vector<float> large(64, 1.0f);
  for (const char* flags : {"--probe_breakpoint=prompt --probe_breakpoint_keep_bytes=200",
                            "--probe_breakpoint=trap"}) {
    CAPTURE(flags);
    probe::set_flags(flags);
    const bool budget = std::string(flags).find("keep_bytes") != std::string::npos;
    std::string out;
    {
      probe::op mm("mm", "MatMul");
      mm.input("small", small).input("large", large);
      if (budget) CHECK(probe::detail::context().frame_kept_bytes == 8);
      probe::detail::stop_info stop = probe::detail::breakpoint_stop("model.cpp", 3, "forward", nullptr, 0);
      stop.reason = "breakpoint";
      out = session(stop, "up\ninfo\np large.shape\np large\nstats large[1:]\ndump large /nonexistent/x.npy\np small\nc\n");
    }
    CHECK(probe::detail::context().frame_kept_bytes == 0);
    probe::set_flags("");
    INFO(out);
    CHECK(out.find("  large  float32[64]  host\n") != std::string::npos);
    CHECK(out.find("(probe) p large.shape\n(64,)\n") != std::string::npos);
    const std::string why = budget ? "input of op mm not kept: its 256 bytes would pass --probe_breakpoint_keep_bytes=200"
                                   : "input of op mm not kept: when the op recorded it, no stop could show it";
    CHECK(out.find("(probe) p large\n*** 'large': " + why) != std::string::npos);
    CHECK(out.find("(probe) stats large[1:]\n*** 'large[1:]': " + why) != std::string::npos);
    CHECK(out.find("(probe) dump large /nonexistent/x.npy\n*** 'large': " + why) != std::string::npos);
    if (budget)
      CHECK(out.find("(probe) p small\n[1. 2.]\n") != std::string::npos);
    else
      CHECK(out.find("(probe) p small\n*** 'small': input of op mm not kept") != std::string::npos);
  }
}
