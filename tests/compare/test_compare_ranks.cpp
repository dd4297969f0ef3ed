// probe compare across the ranks of an MPI job, on rank folders written by hand (no MPI needed):
// probe::mpi's message records link a receive to its send, so a rank's op that received
// differing bytes is followed to the sender's root instead of being a root; a chain of ranks
// is followed to its start; an independent bug stays a root; without message records the later
// root carries a note; missing and cut-short ranks are named.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/compare_run.hpp"
#include "analysis/compare_json.hpp"
#include "analysis/compare_text.hpp"

#include "../support/capture.hpp"
#include "manifest_fixture.hpp"

namespace pa = probe::analysis;
using compare_test::fixture_dump;
using probe_test::temp_dir;

namespace {

std::string when(double t) { return "\"wall_time\":" + std::to_string(t); }

std::string message(const char* dir, int peer, const char* hash, uint64_t seq, const char* op,
                    const std::string& producers = "") {
  return std::string("{\"record\":\"message\",\"dir\":\"") + dir + "\",\"call\":\"MPI_Sendrecv\",\"peer\":" +
         std::to_string(peer) + ",\"tag\":0,\"bytes\":4,\"order\":0,\"hash\":\"" + hash + "\",\"seq\":" +
         std::to_string(seq) + ",\"op\":\"" + op + "\"" + (producers.empty() ? "" : ",\"producers\":[\"" + producers + "\"]") +
         "}";
}

// Rank 0's source writes y (wrong in A) and sends it to rank 1, whose halo receives it into
// its ghost cell; rank 1's `use` reads the ghost and sends its result to rank 2, whose halo2
// receives it. Rank 2 also has a bug of its own later (other#0). `messages`: probe::mpi linked.
void write_job(const std::string& root, bool bad, bool messages) {
  mkdir(root.c_str(), 0755);
  const char* h = bad ? "aaaaaaaaaaaaaaaa" : "bbbbbbbbbbbbbbbb";
  const char* h2 = bad ? "cccccccccccccccc" : "dddddddddddddddd";
  fixture_dump r0(root + "/rank_0000");
  r0.raw("{\"record\":\"run\",\"rank\":0,\"world\":3,\"start_time\":2000.5}");
  r0.out(1, "src", "y", {1, 2, bad ? 7.f : 3.f}, when(10));
  if (messages) r0.raw(message("send", 1, h, 0, "", "src#0/out/y"));
  r0.finish();

  fixture_dump r1(root + "/rank_0001");
  r1.raw("{\"record\":\"run\",\"rank\":1,\"world\":3,\"start_time\":2000.5}");
  r1.in(1, "halo", "edge", {5}, "");
  r1.out(1, "halo", "ghost", {bad ? 7.f : 3.f}, when(20));
  if (messages) r1.raw(message("recv", 0, h, 1, "halo#0"));
  r1.in(2, "use", "ghost", {bad ? 7.f : 3.f}, "halo#0/out/ghost");
  r1.out(2, "use", "z", {bad ? 14.f : 6.f}, when(21));
  if (messages) r1.raw(message("send", 2, h2, 0, "", "use#0/out/z"));
  r1.finish();

  fixture_dump r2(root + "/rank_0002");
  r2.raw("{\"record\":\"run\",\"rank\":2,\"world\":3,\"start_time\":2000.5}");
  r2.in(1, "halo2", "edge", {4}, "");
  r2.out(1, "halo2", "ghost", {bad ? 14.f : 6.f}, when(30));
  if (messages) r2.raw(message("recv", 1, h2, 1, "halo2#0"));
  r2.in(2, "other", "x", {4}, "");
  r2.out(2, "other", "w", {bad ? 9.f : 8.f}, when(31));
  r2.finish();
}

std::vector<std::string> roots_of(const pa::compare_report& r) {
  std::vector<std::string> out;
  for (const pa::compared_run& run : r.runs)
    for (const pa::root_cause& c : run.graph.roots) out.push_back(run.name + " " + run.graph.nodes[c.node].op_key);
  return out;
}

}  // namespace

TEST_CASE("compare ranks: a received difference is followed to the sender's root, along a chain of ranks") {
  temp_dir d;
  write_job(d / "a", true, true);
  write_job(d / "b", false, true);
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  CAPTURE(r.error);
  REQUIRE(r.error.empty());
  REQUIRE(r.ranks.multi);
  CHECK(r.ranks.messages);
  // rank 1's halo and rank 2's halo2 each have matching inputs and a differing output: without
  // the messages both would be roots.
  CHECK(roots_of(r) == std::vector<std::string>{"rank_0000 src#0", "rank_0002 other#0"});
  REQUIRE(r.ranks.links.size() == 2);
  for (const pa::rank_link& l : r.ranks.links) {
    CHECK(l.origin_run == 0);  // both come from rank 0's src, the second through rank 1
    CHECK(r.runs[0].graph.nodes[static_cast<size_t>(l.origin_node)].op_key == "src#0");
  }
  CHECK(r.runs[static_cast<size_t>(r.ranks.first_run)].name == "rank_0000");
  std::string text = pa::compare_summary_text(r);
  for (size_t at; (at = text.find("\n    ")) != std::string::npos;) text.replace(at, 5, " ");  // unwrapped
  INFO(text);
  CHECK(text.find("rank 1: op halo#0 at seq 1 is not a root: what it received from rank 0 differs (MPI_Sendrecv, tag 0): "
                  "received from rank 0 `src#0`'s output (src#0/out/y); from the root src#0 on rank 0.") !=
        std::string::npos);
  CHECK(text.find("received from rank 1 `use#0`'s output (use#0/out/z); from the root src#0 on rank 0.") != std::string::npos);
  CHECK(text.find("Root src#0 on rank 0 reaches other ranks: rank 1: halo#0, use#0; rank 2: halo2#0.") != std::string::npos);
  CHECK(text.find("2 root causes over all ranks") != std::string::npos);
  CHECK(text.find("Note:") == std::string::npos);

  // --json: the same answers under "ranks".
  probe::json::value doc;
  std::string error;
  REQUIRE_MESSAGE(probe::json::parse(pa::compare_json(r), doc, &error), error);
  const probe::json::value& ranks = doc.get("ranks");
  CHECK(ranks.get("messages").as_bool());
  CHECK(ranks.get("first_divergence").get_string("op") == "src#0");
  REQUIRE(ranks.get("roots").size() == 2);
  CHECK(ranks.get("roots")[1].get_int("rank") == 2);
  REQUIRE(ranks.get("received").size() == 2);
  const probe::json::value& second = ranks.get("received")[1];
  CHECK(second.get("op").get_string("op") == "halo2#0");
  CHECK(second.get_int("from_rank") == 1);
  CHECK(second.get("sent_by").get_string("op") == "use#0");
  CHECK(second.get_string("output") == "use#0/out/z");
  CHECK(second.get("root").get_int("rank") == 0);
  CHECK(second.get("root").get_string("op") == "src#0");
}

TEST_CASE("compare ranks: without message records, a later root carries a note") {
  temp_dir d;
  write_job(d / "a", true, false);
  write_job(d / "b", false, false);
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  CAPTURE(r.error);
  REQUIRE(r.error.empty());
  CHECK_FALSE(r.ranks.messages);
  CHECK(r.ranks.links.empty());
  CHECK(roots_of(r) == std::vector<std::string>{"rank_0000 src#0", "rank_0001 halo#0", "rank_0002 halo2#0",
                                                "rank_0002 other#0"});
  REQUIRE(r.ranks.notes.size() == 3);  // every root after rank 0's first divergence, not rank 0's own
  CHECK(r.ranks.notes[0] ==
        "root halo#0 on rank 1 comes after rank 0's first divergence (src#0): it may have received that rank's data; "
        "link probe::mpi to record messages and follow them");
}

TEST_CASE("compare ranks: ranks missing on one side, and a run cut short, are named") {
  temp_dir d;
  write_job(d / "a", true, true);
  write_job(d / "b", false, true);
  REQUIRE(std::system(("rm -rf '" + (d / "b") + "/rank_0002'").c_str()) == 0);
  std::string manifest;
  {
    // rank 1 of A killed: its end record gone
    const std::string path = d / "a" + std::string("/rank_0001/manifest.jsonl");
    FILE* f = std::fopen(path.c_str(), "r");
    REQUIRE(f);
    char buf[1 << 14];
    manifest.assign(buf, std::fread(buf, 1, sizeof buf, f));
    std::fclose(f);
    manifest.erase(manifest.rfind("{\"record\":\"end\"}"));
    f = std::fopen(path.c_str(), "w");
    std::fputs(manifest.c_str(), f);
    std::fclose(f);
  }
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  CAPTURE(r.error);
  REQUIRE(r.error.empty());
  CHECK(r.ranks.missing == std::vector<std::string>{"rank 2 of 3 has no dump in B"});
  REQUIRE(r.ranks.incomplete.size() == 1);
  CHECK(r.ranks.incomplete[0].find("rank 1 in A is incomplete: no end record") == 0);
  CHECK(r.ranks.incomplete[0].find("its last recorded op: use#0 at step 0, seq 2") != std::string::npos);
}

TEST_CASE("compare ranks: a job cut short names the rank that stopped only when the others were waiting for a peer") {
  // Rank 2 dies in its kernel at t=50; ranks 0 and 1 are blocked in MPI_Sendrecv (their last
  // record is its send half), rank 0 since t=40: earlier than rank 2's last record. With rank 3
  // blocked in a collective (no record of waiting), nothing names the failed rank.
  for (const bool with_rank3 : {false, true}) {
    CAPTURE(with_rank3);
    temp_dir d;
    for (const bool cut : {true, false}) {
      const std::string root = d / (cut ? "a" : "b");
      mkdir(root.c_str(), 0755);
      const int world = with_rank3 ? 4 : 3;
      for (int rank = 0; rank < world; ++rank) {
        fixture_dump f(root + "/rank_000" + std::to_string(rank));
        f.raw("{\"record\":\"run\",\"rank\":" + std::to_string(rank) + ",\"world\":" + std::to_string(world) +
              ",\"start_time\":2000.5}");
        f.out(1, "step", "y", {1, 2}, when(rank == 2 ? 45 : 30));
        if (rank < 2)
          f.raw(std::string("{\"record\":\"message\",\"dir\":\"send\",\"call\":\"MPI_Sendrecv\",\"peer\":") +
                std::to_string(rank + 1) + ",\"tag\":0,\"bytes\":4,\"order\":0,\"hash\":\"aaaaaaaaaaaaaaaa\","
                "\"recv_from\":" + std::to_string(rank + 1) + ",\"wall_time\":" + std::to_string(cut ? 40 + rank : 60) + "}");
        if (rank == 2 && cut) {
          f.in(2, "kernel", "x", {1, 2}, "step#0/out/y", when(50));
          // the last rank's exchange: its receive half takes from MPI_PROC_NULL, so the call
          // returned without waiting; its send is its last record all the same
          f.raw("{\"record\":\"message\",\"dir\":\"send\",\"call\":\"MPI_Sendrecv\",\"peer\":1,\"tag\":1,"
                "\"bytes\":4,\"order\":0,\"hash\":\"bbbbbbbbbbbbbbbb\",\"recv_from\":null,\"wall_time\":55}");
        }
        if (!cut) {
          f.finish();
        } else {
          f.finish();
          const std::string path = root + "/rank_000" + std::to_string(rank) + "/manifest.jsonl";
          FILE* in = std::fopen(path.c_str(), "r");
          REQUIRE(in);
          char buf[1 << 14];
          std::string text(buf, std::fread(buf, 1, sizeof buf, in));
          std::fclose(in);
          text.erase(text.rfind("{\"record\":\"end\"}"));
          FILE* out = std::fopen(path.c_str(), "w");
          std::fputs(text.c_str(), out);
          std::fclose(out);
        }
      }
    }
    const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
    CAPTURE(r.error);
    REQUIRE(r.error.empty());
    REQUIRE(r.ranks.incomplete.size() == (with_rank3 ? 4u : 3u));
    const std::vector<std::string>& cut = r.ranks.incomplete;
    CHECK(cut[0].find("rank 0 in A is incomplete") == 0);
    CHECK(cut[0].find("it was waiting in MPI_Sendrecv for rank 1 (its send to rank 1 recorded, its receive not)") !=
          std::string::npos);
    CHECK(cut[1].find("it was waiting in MPI_Sendrecv for rank 2") != std::string::npos);
    CHECK(cut[2].find("it was waiting") == std::string::npos);
    CHECK((cut[2].find("rank 2 in A") == 0 &&
           (cut[2].find("it stopped first: rank 1 was waiting for it in MPI") != std::string::npos) == !with_rank3));
    for (const std::string& line : cut) CHECK((line.find("stopped first") == std::string::npos || line == cut[2]));
  }
}

TEST_CASE("compare ranks: jobs of different sizes are said to differ, not to miss ranks") {
  temp_dir d;
  write_job(d / "a", false, true);  // 3 ranks
  const std::string b = d / "b";
  mkdir(b.c_str(), 0755);
  for (int rank = 0; rank < 2; ++rank) {
    fixture_dump f(b + "/rank_000" + std::to_string(rank));
    f.raw("{\"record\":\"run\",\"rank\":" + std::to_string(rank) + ",\"world\":2,\"start_time\":2000.5}");
    f.out(1, "src", "y", {1, 2, 3}, when(10));
    f.finish();
  }
  const pa::compare_report r = pa::compare_paths(d / "a", b, pa::compare_settings());
  CAPTURE(r.error);
  REQUIRE(r.error.empty());
  INFO(pa::compare_text(r));
  REQUIRE(r.ranks.missing.size() == 1);
  CHECK(r.ranks.missing[0].find("A is a job of 3 ranks and B of 2: rank 2 only in A") == 0);
}

TEST_CASE("compare ranks: an op that got a differing collective result is followed to the rank that gave differing data") {
  temp_dir d;
  for (const bool bad : {true, false}) {
    const std::string root = d / (bad ? "a" : "b");
    mkdir(root.c_str(), 0755);
    const std::string result = bad ? "1111111111111111" : "2222222222222222";
    // rank 0 computes a wrong local sum and gives it to the allreduce; rank 1 gives the same
    // in both runs, and its `norm` op, whose input matches, gets a differing global sum.
    fixture_dump r0(root + "/rank_0000");
    r0.out(1, "local", "s", {bad ? 5.f : 4.f}, when(10));
    r0.raw("{\"record\":\"collective\",\"call\":\"MPI_Allreduce\",\"root\":-1,\"order\":0,\"bytes\":4,"
           "\"hash\":\"" + std::string(bad ? "0a" : "0b") + "\",\"result_hash\":\"" + result +
           "\",\"producers\":[\"local#0/out/s\"]}");
    r0.finish();
    fixture_dump r1(root + "/rank_0001");
    r1.in(1, "norm", "x", {3}, "");
    r1.out(1, "norm", "y", {bad ? 8.f : 7.f}, when(20));
    r1.raw("{\"record\":\"collective\",\"call\":\"MPI_Allreduce\",\"root\":-1,\"order\":0,\"bytes\":4,"
           "\"hash\":\"11\",\"result_hash\":\"" + result + "\",\"seq\":1,\"op\":\"norm#0\"}");
    r1.finish();
  }
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  CAPTURE(r.error);
  REQUIRE(r.error.empty());
  CHECK(roots_of(r) == std::vector<std::string>{"rank_0000 local#0"});
  REQUIRE(r.ranks.links.size() == 1);
  std::string text = pa::compare_summary_text(r);
  for (size_t at; (at = text.find("\n    ")) != std::string::npos;) text.replace(at, 5, " ");
  INFO(text);
  CHECK(text.find("rank 1: op norm#0 at seq 1 is not a root: what MPI_Allreduce gave it differs, and so does rank 0's "
                  "contribution: received from rank 0 `local#0`'s output (local#0/out/s); from the root local#0 on rank 0.") !=
        std::string::npos);
}

TEST_CASE("compare ranks: every op a rank's collectives reached is taken out of its roots, not only the first") {
  // Rank 0's wrong local sum goes into three allreduces; rank 1's three norm ops, whose inputs
  // match, each get a differing result: three links, and rank 0's op the only root.
  temp_dir d;
  for (const bool bad : {true, false}) {
    const std::string root = d / (bad ? "a" : "b");
    mkdir(root.c_str(), 0755);
    fixture_dump r0(root + "/rank_0000");
    r0.out(1, "local", "s", {bad ? 5.f : 4.f}, when(10));
    fixture_dump r1(root + "/rank_0001");
    for (int k = 0; k < 3; ++k) {
      const std::string order = std::to_string(k), result = std::string(bad ? "1" : "2") + order;
      r0.raw("{\"record\":\"collective\",\"call\":\"MPI_Allreduce\",\"root\":-1,\"order\":" + order +
             ",\"bytes\":4,\"hash\":\"" + std::string(bad ? "0a" : "0b") + "\",\"result_hash\":\"" + result +
             "\",\"producers\":[\"local#0/out/s\"]}");
      const uint64_t seq = static_cast<uint64_t>(k) + 1;
      r1.in(seq, "norm", "x", {3}, "", "", 0, static_cast<uint64_t>(k));
      r1.out(seq, "norm", "y", {bad ? 8.f + static_cast<float>(k) : 7.f}, when(20 + k), 0, static_cast<uint64_t>(k));
      r1.raw("{\"record\":\"collective\",\"call\":\"MPI_Allreduce\",\"root\":-1,\"order\":" + order +
             ",\"bytes\":4,\"hash\":\"11\",\"result_hash\":\"" + result + "\",\"seq\":" + std::to_string(seq) +
             ",\"op\":\"norm#" + order + "\"}");
    }
    r0.finish();
    r1.finish();
  }
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  CAPTURE(r.error);
  REQUIRE(r.error.empty());
  INFO(pa::compare_text(r));
  CHECK(r.ranks.links.size() == 3);
  CHECK(roots_of(r) == std::vector<std::string>{"rank_0000 local#0"});
  std::string text = pa::compare_summary_text(r);
  for (size_t at; (at = text.find("\n    ")) != std::string::npos;) text.replace(at, 5, " ");
  CHECK(text.find(" 1 root cause over all ranks.") != std::string::npos);
  CHECK(pa::compare_json(r).find("\"roots\":[{\"rank\":0,\"op\":\"local#0\"") != std::string::npos);
}

TEST_CASE("compare ranks: rank folders an earlier, larger job left in the folder are not compared") {
  // The folder held a 5-rank job; a 3-rank job then rewrote rank_0000..2 only. Ranks 3 and 4
  // are the earlier job's (an older start, a world of 5), with a difference of their own.
  temp_dir d;
  for (const char* side : {"a", "b"}) {
    write_job(d / side, side[0] == 'a', true);
    for (int rank : {3, 4}) {
      fixture_dump old(d / side + std::string("/rank_000") + std::to_string(rank));
      old.raw("{\"record\":\"run\",\"rank\":" + std::to_string(rank) + ",\"world\":5,\"start_time\":1000.25}");
      old.out(1, "stale", "s", {side[0] == 'a' ? 1.f : 2.f}, when(5));
      old.finish();
    }
  }
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  CAPTURE(r.error);
  REQUIRE(r.error.empty());
  CHECK(roots_of(r) == std::vector<std::string>{"rank_0000 src#0", "rank_0002 other#0"});
  CHECK(r.runs.size() == 3);
  CHECK(r.ranks.missing.empty());
  size_t notes = 0;
  for (const std::string& n : r.notes)
    notes += n.find("rank_0003, rank_0004 left out: written by an earlier job of 5 ranks (the latest run, rank_0000, "
                    "is of a job of 3 ranks)") != std::string::npos;
  CHECK(notes == 2);
  // only A's: B has no rank 3 or 4 from any job, and A's are not "only in A"
  for (int rank : {3, 4})
    REQUIRE(std::system(("rm -rf '" + (d / "b") + "/rank_000" + std::to_string(rank) + "'").c_str()) == 0);
  const pa::compare_report q = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  CHECK(q.runs_only_a.empty());
  CHECK(q.ranks.missing.empty());
  CHECK(roots_of(q) == std::vector<std::string>{"rank_0000 src#0", "rank_0002 other#0"});
}

TEST_CASE("compare ranks: bytes no recorded op produced are named as such, and so is the input the sender's error is") {
  // Rank 0's halo sends its input edge, which code outside any op wrote (wrong in A): the send
  // has no producer, and rank 0's root is that input. Rank 1's halo received the bytes. The
  // report once said rank 1 received "`halo#0`'s output" and named "the root halo#0 on rank 0".
  temp_dir d;
  for (const bool bad : {true, false}) {
    const std::string root = d / (bad ? "a" : "b");
    mkdir(root.c_str(), 0755);
    const char* h = bad ? "aaaaaaaaaaaaaaaa" : "bbbbbbbbbbbbbbbb";
    fixture_dump r0(root + "/rank_0000");
    r0.raw("{\"record\":\"run\",\"rank\":0,\"world\":2,\"start_time\":2000.5}");
    r0.in(1, "halo", "edge", {bad ? 7.f : 3.f}, "");
    r0.out(1, "halo", "ghost", {5}, when(10));
    r0.raw(message("send", 1, h, 1, "halo#0"));
    r0.finish();
    fixture_dump r1(root + "/rank_0001");
    r1.raw("{\"record\":\"run\",\"rank\":1,\"world\":2,\"start_time\":2000.5}");
    r1.in(1, "halo", "edge", {5}, "");
    r1.out(1, "halo", "ghost", {bad ? 7.f : 3.f}, when(20));
    r1.raw(message("recv", 0, h, 1, "halo#0"));
    r1.finish();
  }
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  CAPTURE(r.error);
  REQUIRE(r.error.empty());
  REQUIRE(r.ranks.links.size() == 1);
  CHECK(r.ranks.links[0].via.empty());
  CHECK(r.ranks.links[0].origin_input == "halo#0/in/edge");
  std::string text = pa::compare_summary_text(r);
  for (size_t at; (at = text.find("\n    ")) != std::string::npos;) text.replace(at, 5, " ");  // unwrapped
  INFO(text);
  CHECK(text.find("rank 1: op halo#0 at seq 1 is not a root: what it received from rank 0 differs (MPI_Sendrecv, tag 0): "
                  "sent by rank 0 while `halo#0` ran (no recorded op produced the bytes); on rank 0 they come from an "
                  "input that differs there, halo#0/in/edge.") != std::string::npos);
  CHECK(text.find("`halo#0`'s output") == std::string::npos);
  CHECK(text.find("the root halo#0") == std::string::npos);
  CHECK(text.find("The differing input halo#0/in/edge on rank 0 reaches other ranks: rank 1: halo#0.") !=
        std::string::npos);
  CHECK(text.find(" 1 root cause over all ranks") != std::string::npos);
  probe::json::value doc;
  std::string error;
  REQUIRE_MESSAGE(probe::json::parse(pa::compare_json(r), doc, &error), error);
  const probe::json::value& received = doc.get("ranks").get("received")[0];
  CHECK(received.get_string("output").empty());
  CHECK(received.get_string("root_input") == "halo#0/in/edge");
}

TEST_CASE("compare ranks: a run at the top of a folder and rank folders beside it: the one written last is read") {
  // One folder, two jobs: a job of one process writes at the top, one of several ranks in
  // rank folders. Before, the top was read whenever it was there, the later job's ranks never.
  temp_dir d;
  auto set_written = [](const std::string& dir, time_t when_s) {
    const struct timespec t[2] = {{when_s, 0}, {when_s, 0}};
    REQUIRE(utimensat(AT_FDCWD, (dir + "/manifest.jsonl").c_str(), t, 0) == 0);
  };
  for (const char* side : {"a", "b"}) {
    write_job(d / side, side[0] == 'a', true);
    fixture_dump top(d / side);
    top.out(1, "single", "s", {side[0] == 'a' ? 1.f : 2.f}, when(5));
    top.finish();
  }
  for (const char* side : {"a", "b"}) {
    set_written(d / side, 2000000000);  // the top written last
    for (int rank = 0; rank < 3; ++rank) set_written(d / side + "/rank_000" + std::to_string(rank), 1900000000);
  }
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  CAPTURE(r.error);
  REQUIRE(r.error.empty());
  CHECK(roots_of(r) == std::vector<std::string>{" single#0"});
  size_t notes = 0;
  for (const std::string& n : r.notes)
    notes += n.find("rank_0000, rank_0001, rank_0002 left out: an earlier job's rank folders") != std::string::npos;
  CHECK(notes == 2);

  for (const char* side : {"a", "b"}) set_written(d / side, 1800000000);  // now the ranks are the later job
  const pa::compare_report q = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  CAPTURE(q.error);
  REQUIRE(q.error.empty());
  CHECK(roots_of(q) == std::vector<std::string>{"rank_0000 src#0", "rank_0002 other#0"});
  notes = 0;
  for (const std::string& n : q.notes)
    notes += n.find("the run at the top of the folder left out: an earlier job's") != std::string::npos;
  CHECK(notes == 2);
}

TEST_CASE("compare ranks: a rank whose rows are all within tolerance says so, under no empty table") {
  temp_dir d;
  for (const char* side : {"a", "b"}) {
    const bool bad = side[0] == 'a';
    const std::string root = d / side;
    mkdir(root.c_str(), 0755);
    fixture_dump r0(root + "/rank_0000");
    r0.raw("{\"record\":\"run\",\"rank\":0,\"world\":2,\"start_time\":2000.5}");
    r0.out(1, "src", "y", {1, bad ? 7.f : 3.f}, when(10));
    r0.finish();
    fixture_dump r1(root + "/rank_0001");
    r1.raw("{\"record\":\"run\",\"rank\":1,\"world\":2,\"start_time\":2000.5}");
    r1.out(1, "src", "y", {1, 2}, when(10));
    r1.out(2, "use", "z", {4, 5}, when(11));
    r1.finish();
  }
  const pa::compare_report r = pa::compare_paths(d / "a", d / "b", pa::compare_settings());
  REQUIRE(r.error.empty());
  pa::compare_text_options o;
  o.max_rows = 0;  // rows within tolerance left out
  const std::string text = pa::compare_text(r, o);
  INFO(text);
  CHECK(text.find("== rank_0001 ==\n(2 rows within tolerance not shown; --all shows them)\n") != std::string::npos);
  CHECK(text.find("== rank_0000 ==\n   seq  tensor") != std::string::npos);
}
