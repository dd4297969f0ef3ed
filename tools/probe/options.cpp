// Parsing and usage errors for the option tables of options.hpp.
#include "options.hpp"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include <probe/util/text.hpp>

namespace probe_cli {
namespace {

std::vector<std::string> split_choices(const char* list) {
  std::vector<std::string> out(1);
  for (const char* p = list; *p; ++p) {
    if (*p == '|') out.emplace_back();
    else out.back() += *p;
  }
  return out;
}

std::string suggestion(const std::string& close) { return close.empty() ? "" : " (did you mean " + close + "?)"; }

// Checks a value against its option; "" when it is taken, else the sentence saying why not.
std::string value_problem(const option_spec& o, const std::string& value) {
  const std::string name = o.name;
  if (*o.choices) {
    const std::vector<std::string> choices = split_choices(o.choices);
    if (std::find(choices.begin(), choices.end(), value) != choices.end()) return "";
    return name + " takes " + choices_in_words(o.choices) + ", not '" + value + "'" +
           suggestion(closest_match(value, choices));
  }
  if (o.kind == value_kind::integer) {
    errno = 0;
    char* end = nullptr;
    const long long v = strtoll(value.c_str(), &end, 10);
    const bool parsed = !value.empty() && *end == '\0' && errno == 0;
    if (parsed && (!o.ranged() || (v >= o.lo && v <= o.hi))) return "";
    return name + " takes a whole number" +
           (o.ranged() ? " from " + number_text(o.lo) + " to " + number_text(o.hi) : "") + ", not '" + value + "'";
  }
  if (o.kind == value_kind::number) {
    char* end = nullptr;
    const double v = strtod(value.c_str(), &end);
    const bool parsed = !value.empty() && *end == '\0' && std::isfinite(v);
    if (parsed && (!o.ranged() || (v >= o.lo && v <= o.hi))) return "";
    return name + " takes a number" + (o.ranged() ? " from " + number_text(o.lo) + " to " + number_text(o.hi) : "") +
           ", not '" + value + "'";
  }
  return "";
}

// Edit distance with adjacent transpositions (--lable-re is one edit from --label-re).
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// Lower case, leading dashes dropped: "-Metric" and "--metric" are the same word to a typist.
std::string comparable(const std::string& s) {
  size_t b = 0;
  while (b < s.size() && s[b] == '-') ++b;
  std::string out = s.substr(b);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string number_text(double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g", v);
  std::string s = buf;
  const size_t e = s.find("e+");
  if (e != std::string::npos) {
    size_t digits = e + 2;
    while (digits + 1 < s.size() && s[digits] == '0') ++digits;
    s = s.substr(0, e + 1) + s.substr(digits);
  }
  return s;
}

std::string choices_in_words(const char* list) {
  const std::vector<std::string> items = split_choices(list);
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += i + 1 == items.size() ? " or " : ", ";
    out += items[i];
  }
  return out;
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string w = comparable(word);
  if (w.empty()) return "";
  std::string best, prefixed;
  size_t best_distance = std::string::npos, prefixes = 0;
  for (const std::string& c : candidates) {
    const std::string k = comparable(c);
    const size_t d = edit_distance(w, k);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
    if (w.size() >= 3 && k.compare(0, w.size(), w) == 0) {
      ++prefixes;
      prefixed = c;
    }
  }
  // Close: at most two edits, and fewer than half the word (--all is not a typo of --ab).
  if (best_distance <= 2 && 2 * best_distance < w.size()) return best;
  if (prefixes == 1) return prefixed;
  return "";
}

parsed_options::parsed_options(const command_spec& spec)
    : spec_(&spec), values_(spec.option_count), last_position_(spec.option_count, -1) {}

size_t parsed_options::index_of(const char* name, value_kind kind, bool any_kind) const {
  for (size_t i = 0; spec_ && i < spec_->option_count; ++i) {
    const option_spec& o = spec_->options[i];
    if (strcmp(o.name, name) != 0) continue;
    if (!any_kind && o.kind != kind)
      throw std::logic_error(std::string("option ") + name + " is read as the wrong kind of value");
    return i;
  }
  throw std::logic_error(std::string("option ") + name + " is not in the table of probe " +
                         (spec_ ? spec_->verb : "?"));
}

void parsed_options::add(size_t option, std::string value, int position) {
  if (!spec_->options[option].repeatable) values_[option].clear();
  values_[option].push_back(std::move(value));
  last_position_[option] = position;
}

bool parsed_options::given(const char* name) const {
  return last_position_[index_of(name, value_kind::flag, true)] >= 0;
}

const std::vector<std::string>& parsed_options::values(const char* name) const {
  return values_[index_of(name, value_kind::text, true)];
}

bool parsed_options::get(const char* name, std::string* out) const {
  const std::vector<std::string>& v = values_[index_of(name, value_kind::text, false)];
  if (v.empty()) return false;
  *out = v.back();
  return true;
}

bool parsed_options::get(const char* name, double* out) const {
  const std::vector<std::string>& v = values_[index_of(name, value_kind::number, false)];
  if (v.empty()) return false;
  *out = strtod(v.back().c_str(), nullptr);  // checked by the parser
  return true;
}

bool parsed_options::get(const char* name, long long* out) const {
  const std::vector<std::string>& v = values_[index_of(name, value_kind::integer, false)];
  if (v.empty()) return false;
  *out = strtoll(v.back().c_str(), nullptr, 10);  // checked by the parser
  return true;
}

bool parsed_options::get(const char* name, size_t* out) const {
  long long v = 0;
  if (!get(name, &v)) return false;
  if (v < 0) throw std::logic_error(std::string("option ") + name + " can be negative: not a count");
  *out = static_cast<size_t>(v);
  return true;
}

const char* parsed_options::last_of(std::initializer_list<const char*> names) const {
  const char* last = nullptr;
  int at = -1;
  for (const char* n : names) {
    const int p = last_position_[index_of(n, value_kind::flag, true)];
    if (p > at) {
      at = p;
      last = n;
    }
  }
  return last;
}

const char* parsed_options::only_one_of(std::initializer_list<const char*> names, std::string* error) const {
  std::vector<const char*> given;
  for (const char* n : names)
    if (last_position_[index_of(n, value_kind::flag, true)] >= 0) given.push_back(n);
  if (given.size() > 1) {
    std::string list;
    for (size_t i = 0; i < given.size(); ++i)
      list += std::string(i == 0 ? "" : i + 1 == given.size() ? " and " : ", ") + given[i];
    *error = list + " contradict each other: give one";
  }
  return given.size() == 1 ? given[0] : nullptr;
}

parse_status parse_command_line(const command_spec& spec, int argc, const char* const* argv, parsed_options* out,
                                std::string* error) {
  *out = parsed_options(spec);
  const std::string verb = spec.verb;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") {
      std::vector<std::string> rest(argv + i + 1, argv + argc);
      if (spec.operands != operand_kind::words) {
        out->set_command(std::move(rest));
      } else {
        for (std::string& w : rest) out->add_operand(std::move(w));  // even those starting with -
      }
      return parse_status::ok;
    }
    if (word == "--help" || word == "-h") return parse_status::help;
    if (word.size() < 2 || word[0] != '-') {  // "-" alone is an operand (standard input, by custom)
      if (spec.operands == operand_kind::command_after_dashdash) {
        *error = "unexpected '" + word + "': the command goes after --";
        return parse_status::usage_error;
      }
      out->add_operand(word);
      continue;
    }
    const size_t eq = word.compare(0, 2, "--") == 0 ? word.find('=') : std::string::npos;
    const std::string name = word.substr(0, eq);
    size_t index = spec.option_count;
    for (size_t k = 0; k < spec.option_count; ++k)
      if (name == spec.options[k].name) index = k;
    if (index == spec.option_count) {
      std::vector<std::string> names;
      for (size_t k = 0; k < spec.option_count; ++k) names.push_back(spec.options[k].name);
      names.push_back("--help");
      const std::string close = closest_match(name, names);
      *error = "unknown option '" + word + "'" +
               (close.empty() ? " (probe " + verb + " --help lists them)" : suggestion(close));
      return parse_status::usage_error;
    }
    const option_spec& o = spec.options[index];
    std::string value;
    if (o.kind == value_kind::flag) {
      if (eq != std::string::npos) {
        *error = name + " takes no value, not '" + word.substr(eq + 1) + "'";
        return parse_status::usage_error;
      }
    } else if (eq != std::string::npos) {
      value = word.substr(eq + 1);
    } else if (i + 1 < argc && strcmp(argv[i + 1], "--") != 0) {
      // Whatever it looks like (-5 is a value), except one of this verb's options: "--json
      // --quiet" forgot the file, and would write a report named --quiet.
      const std::string next = argv[i + 1];
      bool is_option = next == "--help";
      for (size_t k = 0; k < spec.option_count && !is_option; ++k) is_option = next == spec.options[k].name;
      if (is_option) {
        *error = name + " needs a value (" + o.metavar + "), not the option " + next + " (a value that is spelled like one: " +
                 name + "=" + next + ")";
        return parse_status::usage_error;
      }
      value = argv[++i];
    } else {
      *error = name + " needs a value (" + o.metavar + ")";
      return parse_status::usage_error;
    }
    const std::string problem = value_problem(o, value);
    if (!problem.empty()) {
      *error = problem;
      return parse_status::usage_error;
    }
    out->add(index, std::move(value), i);
  }
  return parse_status::ok;
}

int usage_error(const command_spec& spec, const std::string& message) {
  // The message may quote what was typed: kept to one printable line.
  fprintf(stderr, "probe %s: %s%s\n", spec.verb, probe::detail::printable(message).c_str(), spec.usage_error_note);
  fflush(stderr);
  return spec.usage_exit;
}

bool read_command_line(const command_spec& spec, int argc, char** argv, parsed_options* out, int* exit_code) {
  std::string error;
  switch (parse_command_line(spec, argc, argv, out, &error)) {
    case parse_status::ok: return true;
    case parse_status::help:
      fputs(help_text(spec).c_str(), stdout);
      *exit_code = 0;
      return false;
    case parse_status::usage_error: *exit_code = usage_error(spec, error); return false;
  }
  return false;
}

}  // namespace probe_cli
