// probe bundle: one op execution of a dump as one archive for a bug report: its snapshot,
// its manifest lines, the keys of the ops that produced its inputs, the run's flags and how
// probe was built. Unpacked, it is a dump folder that probe replay and probe show read.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include <probe/core/options.hpp>
#include <probe/formats/json.hpp>
#include <probe/formats/snapshot.hpp>
#include <probe/util/text.hpp>

#include "options.hpp"
#include "tar_writer.hpp"
#include "verbs.hpp"

namespace probe_cli {
namespace {

const option_spec k_options[] = {
    text("--op", "KEY", "the op execution to bundle, 'op#occurrence' as probe replay --list shows it ('op' alone: #0)"),
    text("--output", "FILE", "the archive to write (a .tar); -o FILE is short for it"),
    text("--folder", "NAME", "the folder the archive unpacks into ([A-Za-z0-9._-], others become _)")
        .by_default("probe-bundle-OP-OCCURRENCE"),
};

int bad_input(const std::string& message) {
  fprintf(stderr, "probe bundle: %s\n", message.c_str());
  return 2;
}

// Names inside the archive come from the dump (op names, folder names): only [A-Za-z0-9._-]
// is kept, and the length is capped, so no name can leave the archive's folder.
std::string safe_name(const std::string& raw, size_t cap) {
  std::string s;
  for (char c : raw) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    s += ok ? c : '_';
  }
  if (s.size() > cap) s.resize(cap);
  if (s.empty() || s.find_first_not_of('.') == std::string::npos) s = "_" + s;
  return s;
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

std::string parent(const std::string& p) {
  const size_t slash = p.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : p.substr(0, slash);
}

std::string base_name(const std::string& p) {
  const size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// A regular file, not followed through a link (a link could point outside the dump), and
// not waited on: a FIFO in its place fails the regular-file check at once.
bool read_text(const std::string& path, std::string* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  char buf[1 << 16];
  for (ssize_t n; ok && (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ok = false;
    else out->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return ok;
}

// One word for a POSIX shell: as it is when made of characters no shell treats specially,
// else in single quotes.
std::string shell_word(const std::string& w) {
  if (!w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") ==
                        std::string::npos)
    return w;
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Whether a probe flag takes the next word as its value ("--probe_dump_to DIR"), as
// probe::init reads argv: only a known flag that is not a boolean does.
bool flag_takes_next_word(const std::string& name) {
#define PROBE_BUNDLE_FLAG_TAKES(kind, flag, def, help) \
  if (name == #flag) return std::string(#kind) != "boolean";
  PROBE_FLAG_LIST(PROBE_BUNDLE_FLAG_TAKES)
#undef PROBE_BUNDLE_FLAG_TAKES
  return false;
}

// The command that re-runs the bundled op: the program the run record names, with its
// arguments, for the hint printed and the archive's README. The run's probe flags are left
// out: replay adds its own, and the recorded --probe_dump_to would dump again, over the run
// the bundle came from. A word that cannot be shown as it is (a control character, invalid
// UTF-8: it could forge or split the line) or a command too long for a hint leaves the
// arguments to bundle.json; no recorded program (a dump from before argv was recorded, or
// no manifest) gives a placeholder no one will take for a real program.
std::string replay_command_of(const probe::json::value& argv) {
  const std::string placeholder = "<your program> [its arguments]";
  if (!argv.is_array() || argv.size() == 0 || !argv.at(0).is_string()) return placeholder;
  const std::string program = argv.at(0).as_string();
  if (program.empty() || probe::detail::printable(program) != program) return placeholder;
  std::string command = shell_word(program);
  bool whole = true;
  for (size_t i = 1; i < argv.size() && whole; ++i) {
    const std::string w = argv.at(i).is_string() ? argv.at(i).as_string() : std::string();
    const char* body = w[0] == '-' ? (w[1] == '-' ? w.c_str() + 2 : w.c_str() + 1) : nullptr;
    if (body && strncmp(body, "probe_", 6) == 0) {
      const std::string name = body + 6;
      if (name.find('=') == std::string::npos && flag_takes_next_word(name) && i + 1 < argv.size() &&
          argv.at(i + 1).is_string() && argv.at(i + 1).as_string().compare(0, 2, "--") != 0)
        ++i;
      continue;
    }
    whole = argv.at(i).is_string() && probe::detail::printable(w) == w;
    command += " " + shell_word(w);
  }
  constexpr size_t k_longest = 200;  // columns of a hint one copies from a terminal
  if (!whole || command.size() > k_longest) return shell_word(program) + " [its arguments: run.argv in bundle.json]";
  return command;
}

struct manifest_part {
  std::string lines;  // the run record and the op's own records, as written
  probe::json::value run = probe::json::value::object();
};

// The run record, the records of one op execution and the end record, from the manifest of
// its run folder.
manifest_part op_lines(const std::string& run_dir, const probe::snapshot::info& snap) {
  manifest_part m;
  std::string text;
  if (!read_text(run_dir + "/manifest.jsonl", &text)) return m;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    probe::json::value v;
    if (!probe::json::parse(line, v) || !v.is_object()) continue;  // a cut-short last line
    const std::string kind = v.get_string("record");
    const bool ours = v.get_string("op") == snap.op && static_cast<uint64_t>(v.get_int("occurrence", -1)) == snap.occurrence;
    if (kind == "run") {
      m.run = v;
      m.lines += line + "\n";
    } else if (((kind == "tensor" || kind == "attrs") && ours) || kind == "end") {
      m.lines += line + "\n";
    }
  }
  return m;
}

// Adds one file of the snapshot folder; refuses links and anything but a regular file (opened
// non-blocking: a FIFO is refused, not waited on).
bool add_snapshot_file(tar_writer& tar, const std::string& dir, const std::string& file, const std::string& into,
                       std::string* error) {
  if (safe_name(file, 255) != file) {
    *error = dir + ": file name '" + file + "' is not a plain name";
    return false;
  }
  const std::string path = dir + "/" + file;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    *error = "cannot read " + path + ": " + strerror(errno);
    return false;
  }
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!ok) *error = path + ": not a regular file";
  if (ok) ok = tar.add_file_from(into + "/" + file, fd, static_cast<size_t>(st.st_size), error);
  ::close(fd);
  return ok;
}

}  // namespace

const command_spec bundle_command = {
    "bundle",
    "one op execution of a dump as a .tar to attach to a bug report",
    "probe bundle DUMP --op KEY -o FILE.tar",
    "Writes one archive holding the snapshot of op execution KEY (dumped with\n"
    "--probe_dump_snapshots), the manifest lines of that op, the keys of the ops its inputs\n"
    "came from, the run's flags and how probe was built (bundle.json). Nothing outside DUMP goes\n"
    "in. Unpacked (tar -xf FILE.tar), its folder is a dump: probe replay FOLDER -- ENGINE\n"
    "re-runs the op, probe show reads it.\n",
    k_options,
    sizeof k_options / sizeof k_options[0],
    "exit: 0 written, 2 bad input",
    2,
    "",
    operand_kind::words,
};

int run_bundle(int argc, char** argv) {
  // -o is --output's short form, as in tar and compilers.
  std::vector<std::string> words(argv, argv + argc);
  for (size_t i = 1; i < words.size() && words[i] != "--"; ++i)
    if (words[i] == "-o") words[i] = "--output";
  std::vector<char*> ptrs;
  for (std::string& w : words) ptrs.push_back(&w[0]);
  parsed_options args;
  int exit_code = 0;
  if (!read_command_line(bundle_command, argc, ptrs.data(), &args, &exit_code)) return exit_code;
  std::string key, out, error;
  if (args.operands().size() != 1) return usage_error(bundle_command, "needs one DUMP folder; see --help");
  if (!args.get("--op", &key) || key.empty()) return usage_error(bundle_command, "needs --op KEY (probe replay --list DUMP lists them)");
  if (!args.get("--output", &out) || out.empty()) return usage_error(bundle_command, "needs -o FILE.tar");
  const std::string dump = args.operands()[0];
  const std::string root = real_path(dump);
  struct stat st;
  if (root.empty() || ::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return bad_input(dump + ": not a folder");

  std::vector<std::string> dirs;
  if (!probe::snapshot::find(dump, &dirs, &error))
    return bad_input(dump + ": holds no snapshot (dump with --probe_dump_snapshots)");
  std::vector<probe::snapshot::info> found;
  std::vector<std::string> keys;
  for (int pass = 0; pass < 2 && found.empty(); ++pass) {
    const std::string want = pass == 0 ? key : key + "#0";
    if (pass == 1 && key.find('#') != std::string::npos) break;
    for (const std::string& d : dirs) {
      probe::snapshot::info s;
      if (!probe::snapshot::read(d, &s, &error)) continue;
      if (pass == 0) keys.push_back(s.key());
      if (s.key() == want) found.push_back(std::move(s));
    }
  }
  if (found.empty()) {
    std::string list;
    for (size_t i = 0; i < keys.size() && i < 12; ++i) list += (i ? ", " : "") + probe::detail::printable(keys[i]);
    if (keys.size() > 12) list += ", ...";
    return bad_input("no snapshot of op '" + probe::detail::printable(key) + "' in " + dump +
                     (list.empty() ? " (no readable snapshot)" : " (it has " + list + ")"));
  }
  if (found.size() > 1) {
    std::string where;
    for (const auto& s : found) where += (where.empty() ? "" : ", ") + s.dir;
    return bad_input("'" + probe::detail::printable(key) + "' has snapshots in several runs (" + where +
                     "); give the run's folder as DUMP");
  }
  const probe::snapshot::info& snap = found[0];
  // Nothing outside DUMP: the snapshot folder, links resolved, must lie inside it.
  const std::string snap_real = real_path(snap.dir);
  if (snap_real.empty() || snap_real.compare(0, root.size() + 1, root + "/") != 0)
    return bad_input(snap.dir + ": lies outside " + dump + " (a link?); not bundled");

  // Its run folder's manifest, when that folder is DUMP or inside it.
  const std::string run_dir = parent(parent(snap_real));
  const bool run_inside = run_dir == root || run_dir.compare(0, root.size() + 1, root + "/") == 0;
  const manifest_part m = run_inside ? op_lines(run_dir, snap) : manifest_part();
  std::string top = "probe-bundle-" + safe_name(snap.op, 80) + "-" + std::to_string(snap.occurrence), folder_name;
  if (args.get("--folder", &folder_name)) top = safe_name(folder_name, 100);
  const std::string folder = "snapshots/" + safe_name(base_name(snap_real), 100);

  std::string info;
  probe::json::writer w(info);
  w.begin_object().member("format", "probe-bundle-1").member("key", snap.key()).member("op", snap.op);
  w.member("type", snap.type).member("occurrence", static_cast<unsigned long long>(snap.occurrence));
  w.member("seq", static_cast<unsigned long long>(snap.seq)).member("step", static_cast<long long>(snap.step));
  w.member("status", snap.status).member("snapshot", folder);
  w.key("producers").begin_array();
  for (const auto& t : snap.inputs)
    if (!t.producer.empty()) w.value(t.producer);
  w.end_array();
  w.key("flags");
  probe::json::write(w, m.run.get("flags").is_array() ? m.run.get("flags") : probe::json::value::array());
  w.key("build");
  probe::json::write(w, m.run.get("build").is_object() ? m.run.get("build") : probe::json::value::object());
  w.key("run");
  probe::json::write(w, m.run);
  w.member("bundled_by", "probe " PROBE_VERSION_STRING);
  w.end_object();
  info += "\n";
  const std::string engine = replay_command_of(m.run.get("argv"));
  const std::string readme =
      "A probe bundle: op " + probe::detail::printable(snap.key()) + " [" + probe::detail::printable(snap.type) +
      "], recorded with status " + snap.status +
      ".\n\n"
      "  bundle.json      the op, the keys of its inputs' producers, the run's flags, how probe was built\n"
      "  manifest.jsonl   the run record and this op's records\n"
      "  " + folder + "/   snapshot.json and its tensors (.npy)\n\n"
      "Re-run the op alone with the engine's registered kernels:\n"
      "  probe replay " + top + " -- " + engine + "\n"
      "  probe replay --reference " + top + " -- " + engine + "   (its reference kernel)\n"
      "Show it:\n"
      "  probe show " + top + "/" + folder + "\n";

  tar_writer tar;
  if (!tar.open(out, &error)) return bad_input(error);
  bool ok = tar.add_dir(top, &error) && tar.add_file(top + "/README.txt", readme, &error) &&
            tar.add_file(top + "/bundle.json", info, &error) && tar.add_file(top + "/manifest.jsonl", m.lines, &error) &&
            tar.add_dir(top + "/snapshots", &error) && tar.add_dir(top + "/" + folder, &error) &&
            add_snapshot_file(tar, snap_real, "snapshot.json", top + "/" + folder, &error);
  size_t files = 4;
  std::vector<std::string> siblings;  // snapshot folders added for pieces of a prior state
  for (int side = 0; ok && side < 2; ++side)
    for (const auto& t : side ? snap.outputs : snap.inputs) {
      if (!ok) break;
      if (t.file.empty()) {
        // An implicit prior state: the producers' files it is made of, in their own folders
        // beside this one, as in the dump (a piece that cannot be added leaves it unknown).
        for (const probe::snapshot::piece& p : t.pieces) {
          const size_t slash = p.file.find('/');
          const std::string sib = p.file.substr(0, slash), name = p.file.substr(slash + 1);
          const std::string sib_real = real_path(parent(snap_real) + "/" + sib);
          if (safe_name(sib, 100) != sib || sib_real.empty() || sib_real.compare(0, root.size() + 1, root + "/") != 0)
            continue;
          if (std::find(siblings.begin(), siblings.end(), sib) == siblings.end()) {
            ok = ok && tar.add_dir(top + "/snapshots/" + sib, &error);
            siblings.push_back(sib);
          }
          std::string ignored;
          if (ok && add_snapshot_file(tar, sib_real, name, top + "/snapshots/" + sib, &ignored)) ++files;
        }
        continue;
      }
      ok = add_snapshot_file(tar, snap_real, t.file, top + "/" + folder, &error);
      ++files;
    }
  if (!ok || !tar.finish(&error)) return bad_input(error);
  printf("probe bundle: wrote %s: %s [%s], status %s, %zu files under %s/\n", out.c_str(),
         probe::detail::printable(snap.key()).c_str(), probe::detail::printable(snap.type).c_str(), snap.status.c_str(),
         files, top.c_str());
  // The next step, to copy: the output name quoted as the shell needs, the folder made of
  // safe characters already.
  const std::string tar_word = probe::detail::printable(out) == out ? shell_word(out) : "FILE.tar";
  printf("  tar -xf %s && probe replay %s -- %s\n", tar_word.c_str(), top.c_str(), engine.c_str());
  return 0;
}

}  // namespace probe_cli
