#include <doctest/doctest.h>
#include <probe/probe.hpp>
#include <probe/effects/dump_names.hpp>
#include <probe/util/text.hpp>

#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "../support/capture.hpp"

using probe::detail::sanitize_name;
using probe::detail::tensor_file_name;

TEST_CASE("names: allow-list sanitizer") {
  CHECK(sanitize_name("conv1", 100) == "conv1");
  CHECK(sanitize_name("layer.0/attn:q", 100) == "layer.0_attn_q");
  CHECK(sanitize_name("../../etc/passwd", 100) == ".._.._etc_passwd");
  CHECK(sanitize_name("/abs/path", 100) == "_abs_path");
  CHECK(sanitize_name(std::string("a\0b", 3), 100) == "a_b");
  CHECK(sanitize_name("", 100) == "_");
  CHECK(sanitize_name("résumé", 100) == "r__sum__");  // each non-ASCII byte becomes '_'
}

TEST_CASE("names: long names are capped and stay distinct") {
  std::string a(10000, 'x'), b(10000, 'x');
  b[9999] = 'y';
  auto sa = sanitize_name(a, 120), sb = sanitize_name(b, 120);
  CHECK(sa.size() == 120);
  CHECK(sb.size() == 120);
  CHECK(sa != sb);
  auto f = tensor_file_name(123456789, a, false, b, ".npy");
  CHECK(f.size() <= 255);
  CHECK(f.find('/') == std::string::npos);
}

TEST_CASE("names: the dump layout's file names") {
  CHECK(tensor_file_name(12, "conv1", false, "y", ".npy") == "op_000012.conv1.out.y.npy");
  CHECK(tensor_file_name(7, "attn/qk", true, "x:0", ".npy") == "op_000007.attn_qk.in.x_0.npy");
  CHECK(probe::detail::op_file_stem(3, "relu") == "op_000003.relu");
}

TEST_CASE("run dir: rank folders with several ranks") {
  probe_test::temp_dir d;
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  probe::detail::run_dir rd;
  std::string where;
  REQUIRE(probe::detail::open_run_dir(d.path(), &rd, &where) == 0);
  CHECK(rd.path == d / "rank_0003");
  close(rd.lock_fd);
  setenv("OMPI_COMM_WORLD_SIZE", "1", 1);  // a world of one: no rank folder
  probe::detail::run_dir one;
  REQUIRE(probe::detail::open_run_dir(d.path(), &one, &where) == 0);
  CHECK(one.path == d.path());
  close(one.lock_fd);
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("OMPI_COMM_WORLD_SIZE");
}

TEST_CASE("run dir: a directory owned by another live process gets a private folder") {
  probe_test::temp_dir d;
  int ready[2], done[2];
  REQUIRE(pipe(ready) == 0);
  REQUIRE(pipe(done) == 0);
  const pid_t child = fork();
  if (child == 0) {
    probe::detail::run_dir rd;
    std::string where;
    const int e = probe::detail::open_run_dir(d.path(), &rd, &where);
    char c = e == 0 ? 'k' : 'e';
    if (write(ready[1], &c, 1) != 1) _exit(3);
    if (read(done[0], &c, 1) != 1) _exit(3);  // hold the lock until the parent is done
    _exit(0);
  }
  char c = 0;
  REQUIRE(read(ready[0], &c, 1) == 1);
  REQUIRE(c == 'k');
  probe::detail::run_dir mine;
  std::string where;
  REQUIRE(probe::detail::open_run_dir(d.path(), &mine, &where) == 0);
  CHECK(mine.path != d.path());
  CHECK(mine.path.rfind(d.path() + "/", 0) == 0);
  CHECK(mine.path.find("_" + std::to_string(getpid())) != std::string::npos);
  CHECK(mine.note.find("holds another live dump (of another process") != std::string::npos);
  close(mine.lock_fd);
  CHECK(write(done[1], "x", 1) == 1);
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));
  // Once the other process is gone its lock is gone too: the directory is free again.
  probe::detail::run_dir again;
  REQUIRE(probe::detail::open_run_dir(d.path(), &again, &where) == 0);
  CHECK(again.path == d.path());
  close(again.lock_fd);
}

TEST_CASE("fs: atomic files appear whole or not at all") {
  probe_test::temp_dir d;
  const std::string path = d / "a.bin";
  {
    probe::detail::atomic_file f;
    REQUIRE(f.open(path) == 0);
    REQUIRE(probe::detail::write_all(f.fd(), "hello", 5) == 0);
    CHECK(access(path.c_str(), F_OK) != 0);  // not visible before commit
    // abandoned: destructor removes the temporary
  }
  CHECK(access(path.c_str(), F_OK) != 0);
  CHECK(std::system(("test -z \"$(ls -A '" + d.path() + "')\"").c_str()) == 0);
  REQUIRE(probe::detail::write_file_atomic(path, "hello", 5) == 0);
  std::ifstream in(path);
  std::string s;
  in >> s;
  CHECK(s == "hello");
  CHECK(probe::detail::make_dirs(d / "x/y/z") == 0);
  CHECK(probe::detail::is_dir(d / "x/y/z"));
  CHECK(probe::detail::make_dirs(path + "/sub") == ENOTDIR);
}

namespace {
std::string listing(const std::string& dir, bool hide_temporaries = false) {
  std::string out;
  FILE* p = popen(("ls -A '" + dir + "'").c_str(), "r");
  if (!p) return "?";
  char buf[256];
  while (fgets(buf, sizeof buf, p))
    if (!hide_temporaries || !strstr(buf, ".tmp.")) out += buf;
  pclose(p);
  return out;
}

// Commits `text` to dir/name through an atomic_file opened both ways (a path; a name
// relative to an open directory) and checks what is visible at each point.
void atomic_file_round(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  const int dirfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(dirfd >= 0);
  for (int relative = 0; relative < 2; ++relative) {
    const std::string before = listing(dir);
    probe::detail::atomic_file f;
    REQUIRE((relative ? f.open_at(dirfd, name) : f.open(path)) == 0);
    REQUIRE(probe::detail::write_all(f.fd(), text.data(), text.size()) == 0);
    CHECK(listing(dir, true) == before);  // no final name yet, or still the old file
    REQUIRE(f.commit() == 0);
    std::ifstream in(path);
    std::string s;
    std::getline(in, s);
    CHECK(s == text);
    CHECK(listing(dir).find(".tmp.") == std::string::npos);  // no temporary left
  }
  close(dirfd);
}
}  // namespace

TEST_CASE("fs: atomic files through O_TMPFILE and through named temporaries, new names and reused ones") {
  const int saved = probe::detail::g_atomic_file_mode;
  // Unnamed files linked with AT_EMPTY_PATH (when permitted), through /proc/self/fd, and
  // named temporaries.
  const int modes[] = {0, probe::detail::k_atomic_no_empty_path, probe::detail::k_atomic_named_only};
  for (int mode : modes) {
    CAPTURE(mode);
    const bool named = mode == probe::detail::k_atomic_named_only;
    probe::detail::g_atomic_file_mode = mode;
    probe_test::temp_dir d;
    atomic_file_round(d.path(), "fresh.bin", "one");       // a new name, then the same name again
    atomic_file_round(d.path(), "fresh.bin", "two");
    CHECK(listing(d.path()) == "fresh.bin\n");
    {
      probe::detail::atomic_file f;  // abandoned: nothing appears, nothing is left
      REQUIRE(f.open(d / "gone.bin") == 0);
      REQUIRE(probe::detail::write_all(f.fd(), "x", 1) == 0);
    }
    CHECK(listing(d.path()) == "fresh.bin\n");
    probe::detail::atomic_file f;  // a missing directory is an error, not a crash
    CHECK(f.open(d / "no/such/dir.bin") == ENOENT);
#if defined(__linux__)
    // Linux file systems for temporary directories (ext4, xfs, btrfs, tmpfs) have O_TMPFILE:
    // the first round must not have fallen back.
    if (!named) CHECK((probe::detail::atomic_file_mode() & probe::detail::k_atomic_named_only) == 0);
#endif
  }
  probe::detail::g_atomic_file_mode = saved;
}

TEST_CASE("printable: control characters and broken UTF-8 are escaped, the rest is kept") {
  using probe::detail::printable;
  CHECK(printable("conv1/relu_2") == "conv1/relu_2");
  CHECK(printable("a\nb\tc\rd") == "a\\nb\\tc\\rd");
  CHECK(printable(std::string("x\x1b[31my\x07\x7f", 9)) == "x\\x1b[31my\\x07\\x7f");
  CHECK(printable(std::string("nul\0z", 5)) == "nul\\x00z");
  CHECK(printable("\xc3\xa9t\xc3\xa9 \xe5\xb1\x82 \xf0\x9f\x94\xa5") == "\xc3\xa9t\xc3\xa9 \xe5\xb1\x82 \xf0\x9f\x94\xa5");
  CHECK(printable("\xc2\x9b" "1J") == "\\xc2\\x9b1J");          // C1 control (CSI)
  CHECK(printable("\xff\xfe" "ok") == "\\xff\\xfeok");          // not UTF-8
  CHECK(printable("\xe5\xb1") == "\\xe5\\xb1");                 // truncated sequence
  CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");                 // overlong '/'
  CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");        // surrogate
  CHECK(printable("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
}
