// Adapters for engines' own tensors: a batch of separate per-sample buffers as one tensor
// (read, dumped, printed and shown at a breakpoint whole), and errors naming the wrong field.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../dump/dump_fixture.hpp"
#include <probe/core/tensor_reader.hpp>
#include <probe/effects/breakpoint_frames.hpp>

using dump_test::flags_scope;
using probe_test::temp_dir;

namespace {

// An engine's own tensor type and its adapter, found by ADL.
namespace batch_engine {
struct Batch {
  std::vector<float*> samples;  // each sample: a 2 x 3 row-major matrix
};
inline probe::tensor_view probe_view(const Batch& b) {
  return probe::batch_view(b.samples, probe::view(static_cast<const float*>(nullptr), {2, 3}));
}
}  // namespace batch_engine

std::string problem(const probe::tensor_view& v) { return probe::detail::view_problem_text(v); }

}  // namespace

TEST_CASE("batch_view: shape [count, sample...], gathered in order, strided samples too") {
  std::vector<float> a{0, 1, 2, 3, 4, 5}, b{10, 11, 12, 13, 14, 15}, c{20, 21, 22, 23, 24, 25};
  const float* ptrs[] = {a.data(), b.data(), c.data()};
  const probe::tensor_view v = probe::batch_view(ptrs, 3, probe::view(a.data(), {2, 3}));
  REQUIRE(v.ndim == 3);
  CHECK(v.shape[0] == 3);
  CHECK(v.shape[1] == 2);
  CHECK(v.shape[2] == 3);
  CHECK(v.data == nullptr);
  CHECK(problem(v).empty());
  probe::tensor t;
  std::string err;
  REQUIRE_MESSAGE(probe::detail::read_tensor(v, &t, &err), err);
  REQUIRE(t.numel() == 18);
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 6; ++i) CHECK(t.data_as<float>()[k * 6 + i] == static_cast<float>(10 * k + i));
  // Each sample the transpose of its buffer: strides (1, 3) on a 3 x 2 shape.
  const probe::tensor_view tv = probe::batch_view(ptrs, 3, probe::view(a.data(), {3, 2}, {1, 3}));
  REQUIRE(probe::detail::read_tensor(tv, &t, &err));
  CHECK(t.data_as<float>()[6 + 1] == 13.f);  // sample 1, row 0, column 1: b[3]
  CHECK(t.data_as<float>()[6 + 2] == 11.f);  // sample 1, row 1, column 0: b[1]
}

TEST_CASE("batch_view: an op records one array with the batch dimension; dump, print and frames see it") {
  temp_dir d;
  std::vector<float> a{1, 2, 3, 4, 5, 6}, b{7, 8, 9, 10, 11, 12};
  batch_engine::Batch batch{{a.data(), b.data()}};
  {
    flags_scope f("--probe_dump_to=" + d.path() + " --probe_dump_as_npy --probe_breakpoint=prompt");
    probe::op op("attn", "Attention");
    op.input("q", batch);
    probe::detail::stop_info s = probe::detail::breakpoint_stop("x.cpp", 1, "f", nullptr, 0);
    REQUIRE(s.frames.size() == 2);
    REQUIRE(s.frames[1].vars.size() == 1);
    const probe::tensor_view& q = s.frames[1].vars[0].view;
    CHECK(q.ndim == 3);
    CHECK(q.shape[0] == 2);
    REQUIRE(q.data != nullptr);
    CHECK(static_cast<const float*>(q.data)[6] == 7.f);
    const probe::var_ref vars[] = {probe::var("batch", batch)};
    probe::detail::stop_info s2 = probe::detail::breakpoint_stop("x.cpp", 2, "f", vars, 1);
    REQUIRE(s2.frames[0].vars[0].view.data != nullptr);
    CHECK(static_cast<const float*>(s2.frames[0].vars[0].view.data)[11] == 12.f);
  }
  std::string err;
  probe::tensor t = probe::npy::read(d / "op_000001.attn.in.q.npy", &err);
  REQUIRE_MESSAGE(!t.empty(), err);
  REQUIRE(t.ndim() == 3);
  CHECK(t.shape(0) == 2);
  CHECK(t.shape(1) == 2);
  CHECK(t.shape(2) == 3);
  for (int i = 0; i < 12; ++i) CHECK(t.data_as<float>()[i] == static_cast<float>(i + 1));
  const auto lines = dump_test::manifest_lines(d.path());
  CHECK(dump_test::count_containing(lines, "\"key\":\"attn#0/in/q\",\"producer\":null,\"dtype\":\"float32\",\"shape\":[2,2,3]") == 1);
}

TEST_CASE("batch_view: a print shows the whole batch, captured at the call") {
  temp_dir d;
  std::vector<int> a{1, 2}, b{3, 4};
  const int* ptrs[] = {a.data(), b.data()};
  {
    flags_scope f("--probe_print_to=" + (d / "out.txt"));
    probe::print("b={}", probe::batch_view(ptrs, 2, probe::view(a.data(), {2})));
    a[0] = 99;  // after the call: not what is printed
    probe::effects_barrier();
  }
  CHECK(dump_test::read_file(d / "out.txt") == "b=[[1 2]\n [3 4]]\n");
}

TEST_CASE("adapter errors name the field that is wrong") {
  float x[4] = {};
  CHECK(problem(probe::view(x, {1, 1, 1, 1, 1, 1, 1, 1, 1})) ==
        "invalid tensor view: its shape has more than 8 dimensions (probe::max_dims)");
  CHECK(problem(probe::view(x, {2, 2}, {1})) ==
        "invalid tensor view: its strides do not have one entry per dimension of its shape");
  CHECK(problem(probe::view(x, {2, -3})) == "invalid tensor view: shape[1] is -3");
  CHECK(problem(probe::view(static_cast<const float*>(nullptr), {4})) ==
        "invalid tensor view: data is null with 4 elements in its shape");
  CHECK(problem(probe::view_raw(x, probe::dtype::invalid, {4})) == "invalid tensor view: its dtype is invalid (0)");
  const float* ptrs[] = {x, nullptr};
  CHECK(problem(probe::batch_view(ptrs, 2, probe::view(x, {4}))) ==
        "invalid tensor view: batch_view's pointer for sample 1 is null");
  CHECK(problem(probe::batch_view(ptrs, -1, probe::view(x, {4}))) ==
        "invalid tensor view: batch_view's count is negative, or its pointer array is null");
  CHECK(problem(probe::batch_view(ptrs, 2, probe::view(x, {2, 2}, {1}))) ==
        "invalid tensor view: batch_view's sample view is itself invalid or a batch");
  CHECK(problem(probe::batch_view(ptrs, 2, probe::view(x, {1, 1, 1, 1, 1, 1, 1, 1}))) ==
        "invalid tensor view: its shape has more than 8 dimensions (probe::max_dims)");
  // The reader (dump files, device copies) and the prompt say the same.
  probe::detail::tensor_reader r;
  CHECK_FALSE(r.open(probe::view(x, {2, -3})));
  CHECK(r.error() == "invalid tensor view: shape[1] is -3");
}

TEST_CASE("a view with a wrong layout is recorded without data, never read, under every effect") {
  // A negative dimension made a byte count of the whole address space: hashing for data flow
  // read past the buffer and crashed. Each effect now says what is wrong and goes on.
  std::vector<float> buf(6, 1.f);
  const probe::tensor_view negative = probe::view(buf.data(), {2, -3});
  CHECK_FALSE(negative.valid());
  CHECK(negative.nbytes() == 0);
  probe::tensor_view many = probe::view(buf.data(), {6});
  many.ndim = 20;  // past max_dims, as a hand-made view could say
  CHECK_FALSE(many.valid());
  CHECK(many.nbytes() == 0);
  std::string said;  // the print's message is said once per process
  for (const char* flags : {"--probe_dump_as_npy", "--probe_dump_stats_only", "--probe_dump_as_npy --probe_dump_threads=0",
                            "--probe_dump_snapshots", "--probe_dump_as_text --probe_break_on_nonfinite"}) {
    CAPTURE(flags);
    temp_dir d;
    probe_test::capture_fd err(2);
    {
      flags_scope f("--probe_dump_to=" + d.path() + " " + flags + " --probe_print_to=" + (d / "print.txt"));
      probe::op op("bad", "Bad");
      op.input("x", negative);
      op.output("y", negative);
      probe::print("v = {}", negative);
      probe::effects_barrier();
    }
    said += err.stop();
    const std::string manifest = dump_test::read_file(d / "manifest.jsonl");
    CHECK(manifest.find("invalid tensor view: shape[1] is -3") != std::string::npos);
    CHECK(dump_test::read_file(d / "print.txt") == "v = <invalid tensor>\n");
  }
  CHECK(said.find("probe::print / probe::callback: a tensor argument: invalid tensor view: shape[1] is -3") !=
        std::string::npos);
}
