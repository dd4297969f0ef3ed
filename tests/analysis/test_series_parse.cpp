#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "analysis/series_input.hpp"

#include "../support/capture.hpp"

namespace pa = probe::analysis;
using probe_test::temp_dir;

namespace {

void write_file(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

void set_mtime(const std::string& path, long seconds) {
  timeval tv[2] = {{seconds, 0}, {seconds, 0}};
  REQUIRE(utimes(path.c_str(), tv) == 0);
}

double number_or_nan(const std::string& text) {
  double v = 0;
  return pa::parse_number(text, &v) ? v : -12345.0;
}

std::vector<double> values_of(const std::string& text, const pa::metric_matcher& m) {
  return pa::parse_run_output(text, m).values;
}

}  // namespace

TEST_CASE("parse: ANSI colour codes, OSC sequences and carriage returns") {
  CHECK(pa::strip_ansi("\x1b[1;32mMLUPS: 577.3\x1b[0m") == "MLUPS: 577.3");
  CHECK(pa::strip_ansi("\x1b]8;;http://x\x07link\x1b]8;;\x1b\\ end") == "link end");
  CHECK(pa::strip_ansi("a\x1b" "7b") == "ab");
  const auto lines = pa::split_lines("progress 10%\rprogress 100%\rMLUPS: 5\r\nnext\n");
  REQUIRE(lines.size() == 4);
  CHECK(lines[2] == "MLUPS: 5");
  CHECK(lines[3] == "next");
}

TEST_CASE("parse: numbers, strictly") {
  CHECK(number_or_nan("577.3") == doctest::Approx(577.3));
  CHECK(number_or_nan("1e3") == 1000);
  CHECK(number_or_nan("-2") == -2);
  CHECK(number_or_nan("+.5") == 0.5);
  CHECK(number_or_nan("1,234.5") == 1234.5);
  CHECK(number_or_nan("12,345,678") == 12345678);
  // refused rather than half read
  CHECK(number_or_nan("1,5") == -12345.0);
  CHECK(number_or_nan("1,23") == -12345.0);
  CHECK(number_or_nan("1.2.3") == -12345.0);
  CHECK(number_or_nan("nan") == -12345.0);
  CHECK(number_or_nan("inf") == -12345.0);
  CHECK(number_or_nan("1e999") == -12345.0);
  CHECK(number_or_nan("") == -12345.0);
  double v = 0;
  const std::string unit = "12.5ms";
  CHECK(pa::parse_number_prefix(unit.data(), unit.size(), &v) == 4);
  CHECK(v == 12.5);
}

TEST_CASE("parse: a number that goes on in another notation, or underflows to zero, is refused") {
  // base prefixes, digit separators, an exponent cut short, Fortran's exponents (1.5D+03, and
  // 1.5+300 past two digits), and a literal too small for a double
  for (const char* text : {"0x10", "0X1f", "-0x10", "0b101", "0o17", "1_000", "1'000", "5e", "5E+", "2.5e-",
                           "0.15D+04", "1.5d3", "1.5+300", "1e5-3", "1e-400", "-2.5e-999"})
    CHECK_MESSAGE(number_or_nan(text) == -12345.0, std::string(text));
  pa::metric_matcher m("MLUPS");
  for (const char* text : {"0x10", "1_000", "5e", "1e-400"}) {
    const pa::run_values r = pa::parse_run_output(std::string("MLUPS: ") + text + "\n", m);
    CHECK_MESSAGE(r.values.empty(), std::string(text));
    CHECK(r.error == std::string("MLUPS: ") + text);
  }
  // still numbers: zeros written small, tiny values a double holds, units after the number
  CHECK(number_or_nan("0e-400") == 0);
  CHECK(number_or_nan("0.000e5") == 0);
  CHECK(number_or_nan("1e-300") == 1e-300);
  CHECK(number_or_nan("4e-320") > 0);  // subnormal, not zero
  CHECK(values_of("MLUPS: 12.5 MLUPS\nMLUPS: 3.2ms\nMLUPS: 45%\nMLUPS: 2.5x\nMLUPS: 1e5ms\nMLUPS: 0B/s\n"
                  "MLUPS: 577.3+-2.1\nMLUPS: 7 +- 1\n",
                  m) == std::vector<double>{12.5, 3.2, 45, 2.5, 1e5, 0, 577.3, 7});
}

TEST_CASE("parse: NAME: <number>, case-insensitive, whole word, several lines are samples") {
  pa::metric_matcher m("MLUPS");
  CHECK(values_of("mlups: 1\nMLUPS = 2\n  [bench] MLUPS:3.5 (best)\n", m) == std::vector<double>{1, 2, 3.5});
  CHECK(values_of("\x1b[32mMLUPS: \x1b[1m577.3\x1b[0m\n", m) == std::vector<double>{577.3});
  // not the same metric: part of a longer word, or no separator
  CHECK(values_of("avg_MLUPS: 3\nMLUPSX: 4\nMLUPS 5\n", m).empty());
  CHECK(values_of("MLUPS: 1,234.5\n", m) == std::vector<double>{1234.5});
  // a named value that is not a number is not a sample, and explains the failure
  const pa::run_values r = pa::parse_run_output("starting\nMLUPS: nan\n", m);
  CHECK(r.values.empty());
  CHECK(r.error == "MLUPS: nan");
}

TEST_CASE("parse: a metric asked by a name the run never printed lists the names it did print") {
  pa::metric_matcher m("MLUP");
  const pa::run_values r = pa::parse_run_output("lbm 64^3\nMLUPS: 577.3\ntime (s) = 1.5e-3\nMLUPS: 578\nnote: fine\n", m);
  CHECK(r.values.empty());
  CHECK(r.error == "lbm 64^3 (no line names the metric; the output has values for 'MLUPS', 'time (s)')");
  // a failure line is named as it was; nothing to offer when no value was printed
  CHECK(pa::parse_run_output("error: no GPU\n", m).error == "error: no GPU");
  CHECK(pa::value_names({"a: 1", "http://x:80", "a=2", "b : -3.5 ms", "c: x", "d=inf"}) ==
        std::vector<std::string>{"a", "b"});
}

TEST_CASE("parse: --pattern with one capture group; bad expressions are refused") {
  pa::metric_matcher m;
  std::string error;
  REQUIRE(m.set_pattern("speed=([0-9.]+) Mpts/s", &error));
  CHECK(values_of("x speed=12.5 Mpts/s\nspeed=13 Mpts/s\nspeed=oops Mpts/s\n", m) == std::vector<double>{12.5, 13});
  pa::metric_matcher bad;
  CHECK_FALSE(bad.set_pattern("MLUPS: ([0-9", &error));
  CHECK(error.find("not a valid regular expression") != std::string::npos);
  CHECK_FALSE(bad.set_pattern("MLUPS: [0-9]+", &error));
  CHECK(error.find("exactly one capture group") != std::string::npos);
  CHECK_FALSE(bad.set_pattern("(a)(b)", &error));
  CHECK_FALSE(bad.configured());
}

TEST_CASE("parse: patterns over the size cap are refused before compiling, in one escaped line") {
  pa::metric_matcher m;
  std::string error;
  CHECK_FALSE(m.set_pattern("(\\d+)" + std::string(pa::max_option_pattern, 'x'), &error));
  CHECK(error.find("over the 4096 bytes") != std::string::npos);
  CHECK(error.size() < 300);
  CHECK(m.set_pattern("(\\d+)" + std::string(pa::max_option_pattern - 5, 'x'), &error));
  std::string groups;
  for (int i = 0; i < pa::max_option_groups; ++i) groups += "()";
  CHECK_FALSE(m.set_pattern(groups + "(\\d+)", &error));
  CHECK(error.find("101 capture groups") != std::string::npos);
  CHECK_FALSE(m.set_pattern("a\n\x1b[(", &error));
  CHECK(error.find('\n') == std::string::npos);
  CHECK(error.find('\x1b') == std::string::npos);
}

TEST_CASE("parse: a run whose only match is a blank line says why it has no value") {
  pa::metric_matcher m;
  std::string error;
  REQUIRE(m.set_pattern("(\\d*)", &error));
  const pa::run_values r = pa::parse_run_output("   \n\t\n", m);
  CHECK(r.values.empty());
  CHECK_FALSE(r.error.empty());
  CHECK(pa::parse_run_output("  \nMLUPS: n/a\n", m).error == "MLUPS: n/a");
}

TEST_CASE("parse: --pattern skips lines over 1 MiB, noting the first by its line number") {
  pa::metric_matcher m;
  std::string error;
  REQUIRE(m.set_pattern("^.*MLUPS: (\\d+)", &error));
  const std::string huge(pa::max_pattern_line + 1, 'x');
  const std::string near(pa::max_pattern_line - 20, 'x');
  // line numbers as an editor counts them: \r\n is one line end, a lone \r is none
  const std::string text = "a\r\nprogress\r" + huge + " MLUPS: 1\n" + near + " MLUPS: 577\n" + huge + "\n";
  const pa::run_values r = pa::parse_run_output(text, m);
  CHECK(r.values == std::vector<double>{577});
  CHECK(r.long_lines == 2);
  CHECK(r.first_long_line == 2);
  CHECK(r.first_long_bytes == huge.size() + 9);
  CHECK(r.long_line_note() == "line 2 has " + std::to_string(huge.size() + 9) +
                                  " bytes, over the 1 MiB a --pattern is matched against: skipped (and 1 more such line(s))");
  pa::metric_matcher name("MLUPS");  // a name is found on a line of any length
  CHECK(pa::parse_run_output(text, name).values == std::vector<double>{1, 577});
  CHECK(pa::parse_run_output(text, name).long_line_note().empty());
}

TEST_CASE("parse: the error line of a failed run") {
  pa::metric_matcher m("MLUPS");
  const std::string traceback =
      "loading\nTraceback (most recent call last):\n  File \"bench.py\", line 3, in <module>\n    run()\n"
      "ValueError: first\n\nDuring handling of the above exception, another exception occurred:\n\n"
      "Traceback (most recent call last):\n  File \"bench.py\", line 9, in <module>\n"
      "RuntimeError: CUDA error: out of memory\n";
  CHECK(pa::parse_run_output(traceback, m).error == "RuntimeError: CUDA error: out of memory");
  CHECK(pa::parse_run_output("cmake ok\nmake: *** [all] Error 2\n", m).error == "make: *** [all] Error 2");
  CHECK(pa::parse_run_output("\n\n  just this  \nand that\n", m).error == "just this");
  CHECK(pa::parse_run_output("", m).error == "(empty output)");
  CHECK(pa::parse_run_output("Segmentation fault (core dumped)\x1b[0m\n", m).error == "Segmentation fault (core dumped)");
  // binary output: invalid UTF-8 and control characters do not reach the report
  CHECK(pa::parse_run_output("\xff\xfe\x01 garbage \xc3\xa9\n", m).error == "??  garbage \xc3\xa9");
  CHECK(pa::clean_line(std::string(500, 'x')).size() == 203);
}

TEST_CASE("parse: natural order of labels") {
  auto less = [](const char* a, const char* b) { return pa::natural_compare(a, b) < 0; };
  CHECK(less("nightly-2024-01-9", "nightly-2024-01-10"));
  CHECK(less("run2.txt", "run10.txt"));
  CHECK(less("a", "b"));
  CHECK(less("x1", "x1a"));
  CHECK(less("x01", "x1"));  // same number: byte order breaks the tie
  CHECK_FALSE(less("run10", "run10"));
  CHECK(pa::natural_compare("run10", "run10") == 0);
}

TEST_CASE("tables: CSV with and without a header, failed rows, repeated labels") {
  std::vector<std::string> notes;
  auto rows = pa::read_csv_rows("2024-01-01,577.3\n2024-01-02,build failed\n2024-01-03,\n2024-01-04,\"1,234.5\"\n"
                                "2024-01-04,1000\n",
                                "", &notes);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].values == std::vector<double>{577.3});
  CHECK(rows[1].values.empty());
  CHECK(rows[1].error == "build failed");
  CHECK(rows[2].error == "(no value)");
  CHECK(rows[3].values == std::vector<double>{1234.5, 1000});
  rows = pa::read_csv_rows("date,time_ms,MLUPS\nd1,3.5,500\nd2,3.6,\"x\n", "mlups", &notes);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].label == "d1");
  CHECK(rows[0].values == std::vector<double>{500});
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("unterminated quote") != std::string::npos);
}

TEST_CASE("tables: JSON lines") {
  std::vector<std::string> notes;
  const auto rows = pa::read_jsonl_rows(
      "{\"label\": \"n1\", \"MLUPS\": 577.5, \"extra\": {\"a\": [1, 2]}}\n"
      "{\"label\": \"n2\", \"mlups\": [1, 2, 3]}\n"
      "{\"label\": \"n3\", \"mlups\": null, \"error\": \"Traceback (most recent call last):\\n  File x\\nOSError: disk\"}\n"
      "{\"name\": 20240104, \"mlups\": \"n/a\"}\n"
      "{\"label\": \"n5\", \"mlups\": 1\n"
      "[1, 2]\n",
      "MLUPS", &notes);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].values == std::vector<double>{577.5});
  CHECK(rows[1].values == std::vector<double>{1, 2, 3});
  CHECK(rows[2].error == "OSError: disk");
  CHECK(rows[3].label == "20240104");
  CHECK(rows[3].error == "n/a");
  CHECK(notes.size() == 2);
}

TEST_CASE("tables: JSON-lines labels that are not strings keep their JSON text") {
  std::vector<std::string> notes;
  const auto rows = pa::read_jsonl_rows(
      "{\"label\": 1e300, \"value\": 1}\n{\"label\": -1e400, \"value\": 2}\n{\"label\": true, \"value\": 3}\n"
      "{\"label\": [1, 2], \"value\": 4}\n{\"label\": {\"a\": 1}, \"value\": 5}\n{\"label\":20240109 , \"value\": 6}\n",
      "", &notes);
  REQUIRE(rows.size() == 5);  // -1e400 is no number: that line is skipped
  CHECK(rows[0].label == "1e300");
  CHECK(rows[1].label == "true");
  CHECK(rows[2].label == "[1, 2]");
  CHECK(rows[3].label == "{\"a\": 1}");
  CHECK(rows[4].label == "20240109");
  CHECK(notes.size() == 1);
}

TEST_CASE("input: folders, natural order, labels from --label-re, failed runs kept") {
  temp_dir dir;
  write_file(dir / "out-2024-01-10.txt", "MLUPS: 10\n");
  write_file(dir / "out-2024-01-9.txt", "MLUPS: 9\nMLUPS: 9.5\n");
  write_file(dir / "out-2024-01-11.txt", "Traceback (most recent call last):\n  x\nKeyError: 'a'\n");
  write_file(dir / ".hidden", "MLUPS: 1\n");
  mkdir((dir / "sub").c_str(), 0755);
  pa::series_input_options opt;
  opt.metric.set_name("MLUPS");
  pa::series_load s = pa::load_series({dir.path()}, opt);
  REQUIRE(s.error.empty());
  REQUIRE(s.runs.size() == 3);
  CHECK(s.runs[0].label == "out-2024-01-9.txt");
  CHECK(s.runs[0].values == std::vector<double>{9, 9.5});
  CHECK(s.runs[0].value() == 9.25);
  CHECK(s.runs[1].label == "out-2024-01-10.txt");
  CHECK(s.runs[2].failed());
  CHECK(s.runs[2].error == "KeyError: 'a'");

  opt.label_re = "(\\d{4}-\\d\\d-\\d+)";
  s = pa::load_series({dir.path()}, opt);
  REQUIRE(s.runs.size() == 3);
  CHECK(s.runs[0].label == "2024-01-9");
  opt.label_re = "01-1\\d";  // a filter too: the 9th does not match
  s = pa::load_series({dir.path()}, opt);
  REQUIRE(s.runs.size() == 2);
  CHECK(s.runs[0].label == "01-10");
  REQUIRE(s.notes.size() == 1);
  CHECK(s.notes[0].find("1 input(s) skipped") != std::string::npos);

  // reruns of a night, labelled alike by --label-re, are one run with the samples of all; a
  // failed rerun adds nothing to one that has values
  write_file(dir / "out-2024-01-10-rerun.txt", "MLUPS: 11\n");
  write_file(dir / "out-2024-01-11-rerun.txt", "MLUPS: 12\n");
  opt.label_re = "(\\d{4}-\\d\\d-\\d+)";
  s = pa::load_series({dir.path()}, opt);
  REQUIRE(s.runs.size() == 3);
  CHECK(s.runs[1].label == "2024-01-10");
  std::vector<double> night = s.runs[1].values;
  std::sort(night.begin(), night.end());
  CHECK(night == std::vector<double>{10, 11});
  CHECK(s.runs[2].values == std::vector<double>{12});
  CHECK_FALSE(s.runs[2].failed());
  CHECK(s.runs[2].error.empty());
  REQUIRE(s.notes.size() == 1);
  CHECK(s.notes[0].find("2 input(s) folded") != std::string::npos);
}

TEST_CASE("input: mtime and given order") {
  temp_dir dir;
  write_file(dir / "b", "MLUPS: 2\n");
  write_file(dir / "a", "MLUPS: 1\n");
  write_file(dir / "c", "MLUPS: 3\n");
  set_mtime(dir / "c", 1000);
  set_mtime(dir / "a", 2000);
  set_mtime(dir / "b", 3000);
  pa::series_input_options opt;
  opt.metric.set_name("MLUPS");
  auto labels = [&](const std::vector<std::string>& in) {
    std::string out;
    for (const auto& r : pa::load_series(in, opt).runs) out += r.label;
    return out;
  };
  CHECK(labels({dir / "b", dir / "c", dir / "a"}) == "abc");
  opt.order = pa::run_order::given;
  CHECK(labels({dir / "b", dir / "c", dir / "a"}) == "bca");
  CHECK(labels({dir.path()}) == "abc");  // a folder's files in natural order
  opt.order = pa::run_order::mtime;
  CHECK(labels({dir.path()}) == "cab");
}

TEST_CASE("input: labels that are commit hashes keep a table's rows and files' times, with a note") {
  temp_dir dir;
  // history order: 9f3c2a1 (oldest), 1b7e0d4, e0a9c55, 30707315 (a hash of digits only)
  write_file(dir / "nightly.csv", "commit,MLUPS\n9f3c2a1,1\n1b7e0d4,2\ne0a9c55,3\n3070731,4\n");
  pa::series_input_options opt;
  opt.metric.set_name("MLUPS");
  pa::series_load s = pa::load_series({dir / "nightly.csv"}, opt);
  REQUIRE(s.error.empty());
  std::string order;
  for (const auto& r : s.runs) order += r.label + " ";
  CHECK(order == "9f3c2a1 1b7e0d4 e0a9c55 3070731 ");
  REQUIRE(s.notes.size() == 1);
  CHECK(s.notes[0].find("commit hashes, which have no order") != std::string::npos);

  write_file(dir / "run-c2d9e1f.log", "MLUPS: 1\n");
  write_file(dir / "run-a51b7c0.log", "MLUPS: 2\n");
  write_file(dir / "run-0e4f6d2.log", "MLUPS: 3\n");
  set_mtime(dir / "run-c2d9e1f.log", 1000);
  set_mtime(dir / "run-a51b7c0.log", 2000);
  set_mtime(dir / "run-0e4f6d2.log", 3000);
  order.clear();
  for (const auto& r : pa::load_series({dir / "run-a51b7c0.log", dir / "run-0e4f6d2.log", dir / "run-c2d9e1f.log"}, opt).runs)
    order += r.label + " ";
  CHECK(order == "run-c2d9e1f.log run-a51b7c0.log run-0e4f6d2.log ");
  // a few hashes among numbered runs do not change the natural order
  write_file(dir / "few.csv", "run,MLUPS\nrun-10,1\nrun-9,2\nrun-deadbe1,3\n");
  s = pa::load_series({dir / "few.csv"}, opt);
  CHECK(s.runs[0].label == "run-9");
  CHECK(s.notes.empty());
}

TEST_CASE("input: bad input is an error with one clear message") {
  temp_dir dir;
  write_file(dir / "r1", "MLUPS: 1\n");
  pa::series_input_options opt;
  CHECK(pa::load_series({dir / "r1"}, opt).error.find("name the metric") != std::string::npos);
  opt.metric.set_name("MLUPS");
  CHECK(pa::load_series({dir / "missing"}, opt).error.find("No such file") != std::string::npos);
  CHECK(pa::load_series({}, opt).error.find("no input") != std::string::npos);
  opt.label_re = "([";
  CHECK(pa::load_series({dir / "r1"}, opt).error.find("--label-re") != std::string::npos);
  // tables need no metric name: the second column or the "value" key
  write_file(dir / "s.csv", "a,1\nb,2\n");
  write_file(dir / "s.jsonl", "{\"label\":\"a\",\"value\":1}\n");
  pa::series_input_options plain;
  CHECK(pa::load_series({dir / "s.csv"}, plain).runs.size() == 2);
  CHECK(pa::load_series({dir / "s.jsonl"}, plain).runs.size() == 1);
}
