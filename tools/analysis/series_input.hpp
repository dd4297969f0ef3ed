// Turning command-line inputs into an ordered series of runs: files (one run each), folders
// (every regular file in them), CSV and JSON-lines tables (one run per label); labels from
// file names or a --label-re capture; natural, mtime or given order. POSIX (dirent, stat).
// Standalone header: plain `inline`.
#pragma once
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <probe/util/config.hpp>
#include <probe/util/regex.hpp>
#include <probe/util/text.hpp>
#include "bisect_hint.hpp"
#include "series_parse.hpp"
#include "series_tables.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// One run of the benchmark: its label, where it came from, and its samples; a run without
// samples failed, and `error` says why.
struct run_record {
  std::string label;
  std::string source;          // the file, with ":LINE" for a table row
  std::vector<double> values;  // one per matching line (or table sample)
  std::string error;           // set when values is empty
  double mtime = 0;            // of the file it came from (seconds since the epoch)
  size_t given = 0;            // position in the order the inputs were given

  bool failed() const { return values.empty(); }
  // The run's value: the mean of its samples.
  double value() const {
    long double s = 0;
    for (double v : values) s += v;
    return values.empty() ? 0 : static_cast<double>(s / static_cast<long double>(values.size()));
  }
};

enum class run_order { natural, mtime, given };
enum class input_format { automatic, runs, csv, jsonl };

struct series_input_options {
  metric_matcher metric;   // for output files; its name also selects a table's column or key
  std::string label_re;    // probe's regex (docs/regex.md); the label is its first capture group, or the whole match
  run_order order = run_order::natural;
  input_format format = input_format::automatic;
};

struct series_load {
  std::vector<run_record> runs;    // in the requested order
  std::string error;               // set for bad input: nothing else is meaningful then
  std::vector<std::string> notes;  // things skipped, one line each
};

namespace detail {

inline bool read_whole_file(const std::string& path, std::string* out, std::string* error) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *error = path + ": " + std::strerror(errno);
    return false;
  }
  out->clear();
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  const bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) *error = path + ": read error";
  return !bad;
}

inline std::string base_name(const std::string& path) {
  size_t end = path.size();
  while (end > 1 && path[end - 1] == '/') --end;
  const size_t slash = path.rfind('/', end - 1);
  return slash == std::string::npos ? path.substr(0, end) : path.substr(slash + 1, end - slash - 1);
}

inline bool ends_with_ci(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && lower_ascii(s.substr(s.size() - n)) == suffix;
}

inline input_format format_of(const std::string& path, input_format forced) {
  if (forced != input_format::automatic) return forced;
  if (ends_with_ci(path, ".csv")) return input_format::csv;
  if (ends_with_ci(path, ".jsonl") || ends_with_ci(path, ".ndjson")) return input_format::jsonl;
  return input_format::runs;
}

inline double mtime_of(const struct stat& st) {
  return static_cast<double>(st.st_mtim.tv_sec) + 1e-9 * static_cast<double>(st.st_mtim.tv_nsec);
}

}  // namespace detail

// Reads every input. Missing files, unreadable files, an invalid --label-re, output files
// with no metric named, or no run at all are bad input (`error` set).
inline series_load load_series(const std::vector<std::string>& inputs, const series_input_options& opt) {
  series_load out;
  probe::detail::regex label_re;
  std::string why;
  if (!opt.label_re.empty() && !compile_option_regex("--label-re", opt.label_re, &label_re, &why)) {
    out.error = why;
    return out;
  }
  if (inputs.empty()) {
    out.error = "no input: give result files, folders of them, or a CSV / JSON-lines series";
    return out;
  }

  // Expand folders into their regular files (names in natural order; dot files skipped).
  struct file_in {
    std::string path;
    double mtime;
  };
  std::vector<file_in> files;
  // A file named twice (itself and in its folder, or by two paths) is one run.
  std::set<std::pair<dev_t, ino_t>> seen;
  size_t repeated = 0;
  std::string first_repeated;
  auto add_file = [&](const std::string& path, const struct stat& st) {
    if (seen.insert({st.st_dev, st.st_ino}).second) files.push_back({path, detail::mtime_of(st)});
    else if (repeated++ == 0) first_repeated = path;
  };
  for (const std::string& in : inputs) {
    struct stat st;
    if (::stat(in.c_str(), &st) != 0) {
      out.error = in + ": " + std::strerror(errno);
      return out;
    }
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {  // /dev/zero would never end
      out.error = in + ": a device, not a file of results";
      return out;
    }
    if (!S_ISDIR(st.st_mode)) {
      add_file(in, st);
      continue;
    }
    DIR* dir = ::opendir(in.c_str());
    if (!dir) {
      out.error = in + ": " + std::strerror(errno);
      return out;
    }
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(dir))
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    ::closedir(dir);
    std::sort(names.begin(), names.end(),
              [](const std::string& a, const std::string& b) { return natural_compare(a, b) < 0; });
    const std::string prefix = in.back() == '/' ? in : in + "/";
    size_t kept = 0;
    for (const std::string& name : names) {
      struct stat fst;
      const std::string path = prefix + name;
      if (::stat(path.c_str(), &fst) == 0 && S_ISREG(fst.st_mode)) {
        add_file(path, fst);
        ++kept;
      }
    }
    if (kept == 0) out.notes.push_back(in + ": no regular file in this folder");
  }
  if (repeated)
    out.notes.push_back(std::to_string(repeated) + " input file(s) named more than once, read once (" +
                        ::probe::detail::printable(first_repeated) + ")");

  size_t not_matching = 0;
  auto add_run = [&](run_record r) {
    if (!opt.label_re.empty()) {
      probe::detail::regex::span_vector m;
      if (!label_re.search(r.label.data(), r.label.size(), m)) {
        ++not_matching;
        return;
      }
      const probe::detail::regex_span g = m.size() > 1 && m[1].matched() ? m[1] : m[0];
      r.label = r.label.substr(static_cast<size_t>(g.begin), static_cast<size_t>(g.end - g.begin));
    }
    r.given = out.runs.size() + not_matching;
    out.runs.push_back(std::move(r));
  };

  std::string text, error;
  for (const file_in& f : files) {
    if (!detail::read_whole_file(f.path, &text, &error)) {
      out.error = error;
      return out;
    }
    const input_format fmt = detail::format_of(f.path, opt.format);
    if (fmt == input_format::runs) {
      if (!opt.metric.configured()) {
        out.error = "name the metric: --metric NAME (lines 'NAME: <number>') or --pattern REGEX";
        return out;
      }
      run_values v = parse_run_output(text, opt.metric);
      if (v.long_lines) out.notes.push_back(f.path + ": " + v.long_line_note());
      run_record r;
      r.label = detail::base_name(f.path);
      r.source = f.path;
      r.values = std::move(v.values);
      r.error = std::move(v.error);
      r.mtime = f.mtime;
      add_run(std::move(r));
      continue;
    }
    // A UTF-8 byte-order mark (spreadsheets' "CSV UTF-8") is not part of the first cell.
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
    std::vector<std::string> notes;
    std::vector<table_row> rows = fmt == input_format::csv ? read_csv_rows(text, opt.metric.name(), &notes)
                                                            : read_jsonl_rows(text, opt.metric.name(), &notes);
    for (const std::string& n : notes) out.notes.push_back(f.path + ": " + n);
    for (table_row& row : rows) {
      run_record r;
      r.label = std::move(row.label);
      r.source = f.path + ":" + std::to_string(row.line);
      r.values = std::move(row.values);
      r.error = std::move(row.error);
      r.mtime = f.mtime;
      add_run(std::move(r));
    }
  }
  if (not_matching)
    out.notes.push_back(std::to_string(not_matching) + " input(s) skipped: label does not match --label-re");
  // Reruns: inputs that --label-re gives one label (a night's two logs) are one run; the
  // earliest file time stands for it.
  if (!opt.label_re.empty()) {
    const size_t folded = detail::merge_same_labels(
        &out.runs, [](run_record& first, const run_record& r) { first.mtime = std::min(first.mtime, r.mtime); });
    if (folded)
      out.notes.push_back(std::to_string(folded) + " input(s) folded into the run of the same label (--label-re): " +
                          "one run with the samples of all");
  }
  if (out.runs.empty()) {
    out.error = "no run to analyse";
    return out;
  }

  auto by_given = [](const run_record& a, const run_record& b) { return a.given < b.given; };
  switch (opt.order) {
    case run_order::given: std::stable_sort(out.runs.begin(), out.runs.end(), by_given); break;
    case run_order::mtime:
      std::stable_sort(out.runs.begin(), out.runs.end(), [](const run_record& a, const run_record& b) {
        return a.mtime != b.mtime ? a.mtime < b.mtime : a.given < b.given;
      });
      break;
    case run_order::natural: {
      // Commit hashes have no order: sorted by them, a series is shuffled. Labels that are
      // hashes keep the order of their files' times, then the order given (a table's rows).
      size_t hashes = 0;
      for (const run_record& r : out.runs) hashes += !detail::commit_in_label(r.label).empty();
      if (out.runs.size() > 1 && 2 * hashes > out.runs.size()) {
        std::stable_sort(out.runs.begin(), out.runs.end(), [](const run_record& a, const run_record& b) {
          return a.mtime != b.mtime ? a.mtime < b.mtime : a.given < b.given;
        });
        out.notes.push_back("the labels are commit hashes, which have no order: the runs are in the order of their "
                            "files' times, then as given (a table's rows as written); --order given or a number or "
                            "date in each label chooses another");
        break;
      }
      std::stable_sort(out.runs.begin(), out.runs.end(), [](const run_record& a, const run_record& b) {
        const int c = natural_compare(a.label, b.label);
        return c != 0 ? c < 0 : a.given < b.given;
      });
      break;
    }
  }
  return out;
}

}  // namespace analysis
PROBE_END_NAMESPACE
