// Reading a metric out of a program's output: ANSI colour codes stripped, numbers parsed
// strictly, `NAME: <number>` or a regular expression with one capture group, several
// matching lines kept as samples, and the most useful error line of a run that printed no
// value. Also the natural ordering of run labels. Standalone header: plain `inline`.
//
// Patterns are probe's own regex (probe/util/regex.hpp): matching time is linear in the line
// whatever the pattern, and nothing recurses, so a hostile pattern or a huge line cannot
// hang or crash the CLI as a backtracking engine would.
#pragma once
#include <algorithm>
#include <clocale>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <probe/util/config.hpp>
#include <probe/util/regex.hpp>
#include "option_regex.hpp"
#include "utf8.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// Removes terminal escape sequences: CSI (ESC [ ... final byte, e.g. colours), OSC
// (ESC ] ... BEL or ESC \, e.g. hyperlinks and titles) and two-byte escapes.
inline std::string strip_ansi(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0x9b) {  // 8-bit CSI
      ++i;
      while (i < s.size() && !(s[i] >= 0x40 && s[i] <= 0x7e)) ++i;
      continue;
    }
    if (c != 0x1b) {
      out += s[i];
      continue;
    }
    if (i + 1 >= s.size()) break;
    const char kind = s[i + 1];
    if (kind == '[') {
      i += 2;
      while (i < s.size() && !(s[i] >= 0x40 && s[i] <= 0x7e)) ++i;
    } else if (kind == ']') {
      i += 2;
      while (i < s.size() && s[i] != '\a' && !(s[i] == 0x1b && i + 1 < s.size() && s[i + 1] == '\\')) ++i;
      if (i < s.size() && s[i] == 0x1b) ++i;
    } else {
      ++i;  // ESC x
    }
  }
  return out;
}

// Splits on \n, \r\n and lone \r (progress bars rewrite their line with \r). With
// `line_numbers`, also where each piece is: its 1-based line as an editor counts (by \n).
inline std::vector<std::string> split_lines(const std::string& text, std::vector<size_t>* line_numbers = nullptr) {
  std::vector<std::string> lines;
  size_t start = 0, line = 1;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n' || text[i] == '\r') {
      if (i < text.size() || start < i) {
        lines.emplace_back(text, start, i - start);
        if (line_numbers) line_numbers->push_back(line);
      }
      if (i + 1 < text.size() && text[i] == '\r' && text[i + 1] == '\n') ++i;
      if (i < text.size() && text[i] == '\n') ++line;
      start = i + 1;
    }
  }
  return lines;
}

// Parses a number at the start of [s, s+n): [+-] digits [. digits] [e[+-]digits], or with
// thousands separators in groups of three (1,234,567.5). Returns the characters consumed, 0
// when there is no number. The number must end there: what follows must not go on in another
// notation, which is refused rather than half read: a digit, '.', or ',' and a digit (1,5 or
// 1.2.3); a base prefix (0x10, 0b101, 0o17); a digit separator (1_000, 1'000); an 'e' that
// is no exponent (5e, 5e+, 5eV); Fortran's exponents (1.5D+03, and 1.5+300, where it drops the
// letter past two digits). Results out of a double's range are refused: 1e999, and 1e-400,
// which would read 0.
inline size_t parse_number_prefix(const char* s, size_t n, double* out) {
  size_t i = 0;
  std::string digits;
  if (i < n && (s[i] == '+' || s[i] == '-')) digits += s[i++];
  const size_t int_start = i;
  while (i < n && std::isdigit(static_cast<unsigned char>(s[i]))) digits += s[i++];
  size_t int_len = i - int_start;
  // thousands groups: only after 1-3 leading digits, each exactly three digits
  if (int_len >= 1 && int_len <= 3) {
    size_t j = i;
    std::string grouped;
    auto digit = [&](size_t k) { return k < n && std::isdigit(static_cast<unsigned char>(s[k])); };
    while (j < n && s[j] == ',' && digit(j + 1) && digit(j + 2) && digit(j + 3) && !digit(j + 4)) {
      grouped.append(s + j + 1, 3);
      j += 4;
    }
    if (!grouped.empty()) {
      digits += grouped;
      int_len += grouped.size();
      i = j;
    }
  }
  size_t frac_len = 0;
  if (i < n && s[i] == '.') {
    size_t j = i + 1;
    while (j < n && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    frac_len = j - i - 1;
    if (int_len > 0 || frac_len > 0) {
      digits += '.';
      digits.append(s + i + 1, frac_len);
      i = j;
    }
  }
  if (int_len == 0 && frac_len == 0) return 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (s[j] == '+' || s[j] == '-')) ++j;
    const size_t exp_start = j;
    while (j < n && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j > exp_start) {
      digits.append(s + i, j - i);
      i = j;
    }
  }
  if (i < n) {
    auto digit_at = [&](size_t k, const char* set) { return k < n && s[k] != '\0' && std::strchr(set, s[k]); };
    static const char dec[] = "0123456789";
    const char c = s[i];
    if (digit_at(i, dec) || c == '.') return 0;
    if ((c == ',' || c == '_' || c == '\'') && digit_at(i + 1, dec)) return 0;
    if (c == 'e' || c == 'E') return 0;  // not read as an exponent: one cut short, or a second
    if ((c == 'd' || c == 'D') && (digit_at(i + 1, dec) || (digit_at(i + 1, "+-") && digit_at(i + 2, dec)))) return 0;
    if ((c == '+' || c == '-') && digit_at(i + 1, dec)) return 0;
    if (i == int_start + 1 && s[int_start] == '0') {  // "0" and nothing more: a base may follow
      if ((c == 'x' || c == 'X') && digit_at(i + 1, "0123456789abcdefABCDEF")) return 0;
      if ((c == 'b' || c == 'B') && digit_at(i + 1, "01")) return 0;
      if ((c == 'o' || c == 'O') && digit_at(i + 1, "01234567")) return 0;
    }
  }
  // strtod reads the locale's decimal point; the text always uses '.'.
  const char point = std::localeconv()->decimal_point[0];
  if (point != '.')
    for (char& ch : digits)
      if (ch == '.') ch = point;
  const double v = std::strtod(digits.c_str(), nullptr);
  if (!std::isfinite(v)) return 0;
  if (v == 0 && digits.find_first_of("123456789") < digits.find_first_of("eE")) return 0;  // underflow
  *out = v;
  return i;
}

// Whole-string number (surrounding blanks allowed); for table cells and regex captures.
inline bool parse_number(const std::string& text, double* out) {
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  if (b == e) return false;
  double v;
  if (parse_number_prefix(text.data() + b, e - b, &v) != e - b) return false;
  *out = v;
  return true;
}

inline bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

inline bool iequal_at(const std::string& s, size_t pos, const std::string& word) {
  if (pos + word.size() > s.size()) return false;
  for (size_t k = 0; k < word.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(s[pos + k])) != std::tolower(static_cast<unsigned char>(word[k])))
      return false;
  return true;
}

// The longest line a --pattern is matched against. Matching is linear, but a pattern's
// captures make each byte cost more than a name search; a benchmark's metric line is short,
// so a longer line is binary or a dump, and is skipped with a warning.
constexpr size_t max_pattern_line = size_t{1} << 20;

// Finds a metric's value in one line of text: `NAME: <number>` (or `NAME = <number>`),
// the name matched case-insensitively as a whole word, or a regular expression (probe's
// ECMAScript subset, docs/regex.md) whose one capture group is the number. One value per
// line: the first match.
class metric_matcher {
 public:
  // too_long: a line over max_pattern_line, not matched against the pattern.
  enum class found { none, value, unparsable, too_long };

  metric_matcher() = default;
  explicit metric_matcher(std::string name) : name_(std::move(name)) {}

  // Returns false and sets *error for an invalid expression or a capture group count other
  // than one.
  bool set_pattern(const std::string& pattern, std::string* error) {
    probe::detail::regex re;
    std::string why;
    if (!compile_option_regex("--pattern", pattern, &re, &why)) {
      if (error) *error = why;
      return false;
    }
    if (re.groups() != 1) {
      if (error)
        *error = "--pattern " + quoted_pattern(pattern) + " needs exactly one capture group (it has " +
                 std::to_string(re.groups()) + ")";
      return false;
    }
    re_ = std::move(re);
    pattern_ = pattern;
    has_pattern_ = true;
    return true;
  }
  void set_name(const std::string& name) { name_ = name; }

  const std::string& name() const { return name_; }
  const std::string& pattern() const { return pattern_; }
  bool has_pattern() const { return has_pattern_; }
  bool configured() const { return has_pattern_ || !name_.empty(); }
  // How the metric is named in messages.
  std::string describe() const {
    return has_pattern_ ? "pattern " + quoted_pattern(pattern_) : "'" + ::probe::detail::printable(name_) + ": <number>'";
  }

  // `line` must already be free of escape codes. `unparsable`: the metric is named on the
  // line but what follows is not a number (nan, N/A, ...).
  found match(const std::string& line, double* value) const {
    if (has_pattern_) {
      if (line.size() > max_pattern_line) return found::too_long;
      probe::detail::regex::span_vector groups;
      if (!re_.search(line.data(), line.size(), groups)) return found::none;
      const probe::detail::regex_span g = groups[1];
      if (!g.matched()) return found::unparsable;
      const std::string text(line, static_cast<size_t>(g.begin), static_cast<size_t>(g.end - g.begin));
      return parse_number(text, value) ? found::value : found::unparsable;
    }
    if (name_.empty()) return found::none;
    found result = found::none;
    for (size_t pos = 0; pos + name_.size() <= line.size(); ++pos) {
      if (!iequal_at(line, pos, name_)) continue;
      if (is_word_char(name_.front()) && pos > 0 && is_word_char(line[pos - 1])) continue;
      size_t i = pos + name_.size();
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i >= line.size() || (line[i] != ':' && line[i] != '=')) continue;
      ++i;
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (parse_number_prefix(line.data() + i, line.size() - i, value)) return found::value;
      result = found::unparsable;
    }
    return result;
  }

 private:
  std::string name_;
  std::string pattern_;
  probe::detail::regex re_;
  bool has_pattern_ = false;
};

// One line fit for a report: blanks trimmed, control characters replaced by spaces and
// invalid UTF-8 (binary output) by '?', at most `cap` bytes (never cutting a UTF-8 sequence).
inline std::string clean_line(const std::string& line, size_t cap = 200) {
  size_t b = 0, e = line.size();
  while (b < e && std::isspace(static_cast<unsigned char>(line[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(line[e - 1]))) --e;
  std::string out;
  for (size_t i = b; i < e;) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c < 0x80) {
      out += (c < 0x20 || c == 0x7f) ? ' ' : line[i];
      ++i;
      continue;
    }
    const size_t len = utf8_sequence_length(line, i);
    if (len && i + len <= e) {
      out.append(line, i, len);
      i += len;
    } else {
      out += '?';
      ++i;
    }
  }
  if (out.size() > cap) {
    size_t cut = cap;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) --cut;
    out.resize(cut);
    out += "...";
  }
  return out;
}

inline bool looks_like_error(const std::string& line) {
  static const char* const words[] = {"error",   "fatal",  "fail",   "exception", "abort",
                                      "segmentation fault", "core dumped", "killed", "panic",
                                      "terminate called", "assert", "traceback"};
  std::string lower(line);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* w : words)
    if (lower.find(w) != std::string::npos) return true;
  return false;
}

// The line that best says why a run printed no value, in this order of preference:
//   1. a Python traceback's last line, the exception itself ("RuntimeError: out of memory");
//      with chained tracebacks, the last one's (the first line of a traceback only says
//      "Traceback (most recent call last):", which tells nothing);
//   2. a line naming the metric without a number ("MLUPS: nan");
//   3. the first line that looks like an error (error, fatal, fail, abort, killed, ...);
//   4. the first non-blank line; "(empty output)" when there is none.
inline std::string error_line(const std::vector<std::string>& lines, const std::string& unparsable_line) {
  size_t tb = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].rfind("Traceback (most recent call last)", 0) == 0) tb = i;
  if (tb < lines.size()) {
    for (size_t i = tb + 1; i < lines.size(); ++i) {
      const std::string& l = lines[i];
      if (l.empty() || std::isspace(static_cast<unsigned char>(l[0]))) continue;
      return clean_line(l);
    }
  }
  // A pattern can match a blank line with an empty capture: such a line says nothing.
  if (!clean_line(unparsable_line).empty()) return clean_line(unparsable_line);
  for (const std::string& l : lines)
    if (looks_like_error(l)) return clean_line(l);
  for (const std::string& l : lines)
    if (!clean_line(l).empty()) return clean_line(l);
  return "(empty output)";
}

// What one run's output holds: its values (one per matching line, in order) or, when there
// is none, the error line explaining it; and the lines too long for the pattern.
struct run_values {
  std::vector<double> values;
  std::string error;
  size_t long_lines = 0;        // lines over max_pattern_line, skipped
  size_t first_long_line = 0;   // the first one's line number (1-based)
  size_t first_long_bytes = 0;  // and its length

  // One warning for all the skipped lines; "" when there were none.
  std::string long_line_note() const {
    if (!long_lines) return "";
    std::string note = "line " + std::to_string(first_long_line) + " has " + std::to_string(first_long_bytes) +
                       " bytes, over the 1 MiB a --pattern is matched against: skipped";
    if (long_lines > 1) note += " (and " + std::to_string(long_lines - 1) + " more such line(s))";
    return note;
  }
};

// The names of the values a run printed as "NAME: <number>" or "NAME=<number>" (at most
// `cap`, in order, each once): what to offer when the metric asked for is not among them.
inline std::vector<std::string> value_names(const std::vector<std::string>& lines, size_t cap = 6) {
  std::vector<std::string> names;
  for (const std::string& line : lines) {
    if (names.size() >= cap) break;
    const size_t sep = line.find_first_of(":=");
    if (sep == std::string::npos || sep > 60) continue;
    size_t b = 0, e = sep;
    while (b < e && std::isspace(static_cast<unsigned char>(line[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(line[e - 1]))) --e;
    bool plain = e > b;
    for (size_t i = b; i < e && plain; ++i) {
      const char c = line[i];
      plain = is_word_char(c) || c == ' ' || c == '-' || c == '/' || c == '.' || c == '(' || c == ')';
    }
    if (!plain) continue;
    size_t v = sep + 1;
    while (v < line.size() && (line[v] == ' ' || line[v] == '\t')) ++v;
    double value = 0;
    if (!parse_number_prefix(line.data() + v, line.size() - v, &value)) continue;
    std::string name = line.substr(b, e - b);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  return names;
}

inline run_values parse_run_output(const std::string& text, const metric_matcher& metric) {
  run_values r;
  std::vector<size_t> numbers;
  std::vector<std::string> lines = split_lines(strip_ansi(text), &numbers);
  std::string unparsable;
  for (size_t i = 0; i < lines.size(); ++i) {
    double v = 0;
    switch (metric.match(lines[i], &v)) {
      case metric_matcher::found::value: r.values.push_back(v); break;
      case metric_matcher::found::unparsable:  // the first that is not blank
        if (unparsable.empty() && !clean_line(lines[i]).empty()) unparsable = lines[i];
        break;
      case metric_matcher::found::too_long:
        if (!r.long_lines++) {
          r.first_long_line = numbers[i];
          r.first_long_bytes = lines[i].size();
        }
        break;
      case metric_matcher::found::none: break;
    }
  }
  if (r.values.empty()) {
    r.error = error_line(lines, unparsable);
    // Asked by a name it never printed, while it printed others: most often a misspelling.
    if (unparsable.empty() && !metric.has_pattern()) {
      const std::vector<std::string> names = value_names(lines);
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "'" : ", '") + clean_line(n, 60) + "'";
      if (!list.empty()) r.error += " (no line names the metric; the output has values for " + list + ")";
    }
  }
  return r;
}

// Natural order: digit runs compare as numbers, so nightly-2024-01-9 < nightly-2024-01-10.
// Equal numbers with different leading zeros, then plain byte order, break ties.
inline int natural_compare(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js ? -1 : 1;
      const int c = a.compare(is, ie - is, b, js, je - js);
      if (c) return c < 0 ? -1 : 1;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
      ++i;
      ++j;
    }
  }
  if (i < a.size() || j < b.size()) return i < a.size() ? 1 : -1;
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace analysis
PROBE_END_NAMESPACE
