// Series given as tables rather than one output file per run: CSV (`label,value` rows) and
// JSON lines (one object per run). Rows with the same label are one run with several
// samples; a row without a number is a failed run. Standalone header: plain `inline`.
#pragma once
#include <cctype>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <probe/util/config.hpp>
#include "series_parse.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// One run read from a table, before ordering.
struct table_row {
  std::string label;
  std::vector<double> values;
  std::string error;  // set when values is empty
  size_t line = 0;    // 1-based line in the file
};

namespace detail {

inline std::string lower_ascii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Merges rows that share a label (a run measured twice, a night's reruns) into one run with
// the samples of all, where the first of them stands; a failed row next to one with values
// adds nothing. `also(first, other)` merges what else the row type carries. Returns how many
// rows were folded into an earlier one.
template <class Row, class Also>
size_t merge_same_labels(std::vector<Row>* rows, Also also) {
  std::vector<Row> out;
  std::unordered_map<std::string, size_t> seen;
  size_t folded = 0;
  for (Row& r : *rows) {
    auto it = seen.find(r.label);
    if (it == seen.end()) {
      seen.emplace(r.label, out.size());
      out.push_back(std::move(r));
      continue;
    }
    Row& first = out[it->second];
    first.values.insert(first.values.end(), r.values.begin(), r.values.end());
    if (!first.values.empty()) first.error.clear();
    also(first, r);
    ++folded;
  }
  *rows = std::move(out);
  return folded;
}

inline void merge_same_labels(std::vector<table_row>* rows) {
  merge_same_labels(rows, [](table_row&, const table_row&) {});
}

// Splits one CSV record: commas, double-quoted fields with "" for a quote. Returns false
// for an unterminated quote.
inline bool split_csv(const std::string& line, std::vector<std::string>* cells) {
  cells->clear();
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells->push_back(trim(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  if (quoted) return false;
  cells->push_back(trim(cell));
  return true;
}

}  // namespace detail

// CSV: `label,value` per row. A header row is recognised when its first cell is one of
// label, name, run, date, commit, or when a cell equals `metric` (case-insensitive); the value
// column is then the one named `metric` (else `value`, else the second). Without a header
// the value is the second column. `notes` receives one line per row that was skipped.
inline std::vector<table_row> read_csv_rows(const std::string& text, const std::string& metric,
                                            std::vector<std::string>* notes) {
  std::vector<table_row> rows;
  std::vector<std::string> lines = split_lines(text), cells;
  size_t value_col = 1, first = 0;
  // the header, if any, is the first non-blank line
  while (first < lines.size() && detail::trim(lines[first]).empty()) ++first;
  if (first < lines.size() && detail::split_csv(lines[first], &cells) && !cells.empty()) {
    const std::string head = detail::lower_ascii(cells[0]);
    bool header = head == "label" || head == "name" || head == "run" || head == "date" || head == "commit";
    size_t named = cells.size(), value_named = cells.size();
    for (size_t c = 0; c < cells.size(); ++c) {
      if (!metric.empty() && detail::lower_ascii(cells[c]) == detail::lower_ascii(metric)) named = c;
      if (detail::lower_ascii(cells[c]) == "value") value_named = c;
    }
    if (named < cells.size()) header = true;
    if (header) {
      value_col = named < cells.size() ? named : (value_named < cells.size() ? value_named : 1);
      ++first;
    }
  }
  for (size_t i = first; i < lines.size(); ++i) {
    if (detail::trim(lines[i]).empty() || lines[i][0] == '#') continue;
    if (!detail::split_csv(lines[i], &cells)) {
      if (notes) notes->push_back("line " + std::to_string(i + 1) + ": unterminated quote, row skipped");
      continue;
    }
    table_row r;
    r.line = i + 1;
    r.label = cells[0];
    double v = 0;
    if (value_col >= cells.size() || cells[value_col].empty())
      r.error = "(no value)";
    else if (parse_number(cells[value_col], &v))
      r.values.push_back(v);
    else
      r.error = clean_line(cells[value_col]);
    rows.push_back(std::move(r));
  }
  detail::merge_same_labels(&rows);
  return rows;
}

namespace detail {

// The few JSON values a series line holds. Nested objects are parsed and dropped.
struct json_value {
  enum kind_t { null_v, bool_v, number_v, string_v, array_v, object_v } kind = null_v;
  double number = 0;
  std::string text;
  std::vector<json_value> items;
  // an object's members, names and values apart: a pair holding json_value is not a complete
  // type where json_value's own destructor is made (clang in C++20 refuses it)
  std::vector<std::string> member_names;
  std::vector<json_value> member_values;
  size_t begin = 0, end = 0;  // where the value's text lies in the line (labels keep it as written)
};

class json_line_reader {
 public:
  explicit json_line_reader(const std::string& s) : s_(s) {}
  bool parse(json_value* v) {
    if (!value(v, 0)) return false;
    blank();
    return i_ == s_.size();
  }

 private:
  void blank() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool literal(const char* word) {
    const size_t n = std::char_traits<char>::length(word);
    if (s_.compare(i_, n, word) != 0) return false;
    i_ += n;
    return true;
  }
  static void put_utf8(unsigned cp, std::string* out) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xc0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xe0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      *out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      *out += static_cast<char>(0xf0 | (cp >> 18));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      *out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }
  bool hex4(unsigned* cp) {
    if (i_ + 4 > s_.size()) return false;
    *cp = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      *cp <<= 4;
      if (c >= '0' && c <= '9') *cp |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') *cp |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') *cp |= static_cast<unsigned>(c - 'A' + 10);
      else return false;
    }
    return true;
  }
  bool string(std::string* out) {
    if (i_ >= s_.size() || s_[i_] != '"') return false;
    ++i_;
    while (i_ < s_.size()) {
      const char c = s_[i_++];
      if (c == '"') return true;
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (i_ >= s_.size()) return false;
      const char e = s_[i_++];
      switch (e) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          unsigned cp;
          if (!hex4(&cp)) return false;
          if (cp >= 0xd800 && cp < 0xdc00 && s_.compare(i_, 2, "\\u") == 0) {
            i_ += 2;
            unsigned lo;
            if (!hex4(&lo) || lo < 0xdc00 || lo >= 0xe000) return false;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          }
          put_utf8(cp, out);
          break;
        }
        default: return false;
      }
    }
    return false;
  }
  bool value(json_value* v, int depth) {
    if (depth > 64) return false;
    blank();
    v->begin = i_;
    const bool ok = any_value(v, depth);
    v->end = i_;
    return ok;
  }
  bool any_value(json_value* v, int depth) {
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '"') {
      v->kind = json_value::string_v;
      return string(&v->text);
    }
    if (c == '{' || c == '[') {
      const bool object = c == '{';
      v->kind = object ? json_value::object_v : json_value::array_v;
      ++i_;
      blank();
      if (i_ < s_.size() && s_[i_] == (object ? '}' : ']')) {
        ++i_;
        return true;
      }
      for (;;) {
        json_value item;
        std::string key;
        if (object) {
          blank();
          if (!string(&key)) return false;
          blank();
          if (i_ >= s_.size() || s_[i_++] != ':') return false;
        }
        if (!value(&item, depth + 1)) return false;
        if (object) {
          v->member_names.push_back(std::move(key));
          v->member_values.push_back(std::move(item));
        } else {
          v->items.push_back(std::move(item));
        }
        blank();
        if (i_ >= s_.size()) return false;
        const char sep = s_[i_++];
        if (sep == ',') continue;
        return sep == (object ? '}' : ']');
      }
    }
    if (literal("null")) return true;
    if (literal("true") || literal("false")) {
      v->kind = json_value::bool_v;  // never a value or a label: the truth is not needed
      return true;
    }
    const size_t start = i_;
    if (s_[i_] == '-') ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' ||
                              s_[i_] == 'e' || s_[i_] == 'E' || s_[i_] == '+' || s_[i_] == '-'))
      ++i_;
    if (i_ == start) return false;
    const std::string num = s_.substr(start, i_ - start);
    v->kind = json_value::number_v;
    return parse_number(num, &v->number);
  }

  const std::string& s_;
  size_t i_ = 0;
};

inline const json_value* member(const json_value& obj, const std::string& key) {
  const std::string want = lower_ascii(key);
  for (size_t i = 0; i < obj.member_names.size(); ++i)
    if (lower_ascii(obj.member_names[i]) == want) return &obj.member_values[i];
  return nullptr;
}

}  // namespace detail

// JSON lines: one object per line. The label is the first of the keys label, name, run,
// date, commit; the value is the key named `metric` (case-insensitive; else "value"): a
// number, an array of numbers (samples), or null / a string / missing for a failed run,
// whose error is the "error" key when present.
inline std::vector<table_row> read_jsonl_rows(const std::string& text, const std::string& metric,
                                              std::vector<std::string>* notes) {
  std::vector<table_row> rows;
  std::vector<std::string> lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (detail::trim(lines[i]).empty()) continue;
    detail::json_value obj;
    detail::json_line_reader reader(lines[i]);
    if (!reader.parse(&obj) || obj.kind != detail::json_value::object_v) {
      if (notes) notes->push_back("line " + std::to_string(i + 1) + ": not a JSON object, skipped");
      continue;
    }
    table_row r;
    r.line = i + 1;
    const detail::json_value* label = nullptr;
    for (const char* key : {"label", "name", "run", "date", "commit"})
      if (!label) label = detail::member(obj, key);
    if (!label || label->kind == detail::json_value::null_v) {
      if (notes) notes->push_back("line " + std::to_string(i + 1) + ": no label (label, name, run, date or commit), skipped");
      continue;
    }
    // A label that is not a string (a date or build number, even true or [1, 2]) is its
    // JSON text: 1e300 stays 1e300 and 20240104 stays 20240104.
    if (label->kind == detail::json_value::string_v)
      r.label = label->text;
    else
      r.label = lines[i].substr(label->begin, label->end - label->begin);
    const detail::json_value* value = detail::member(obj, metric.empty() ? "value" : metric);
    if (!value && !metric.empty()) value = detail::member(obj, "value");
    if (value && value->kind == detail::json_value::number_v) {
      r.values.push_back(value->number);
    } else if (value && value->kind == detail::json_value::array_v) {
      for (const auto& item : value->items)
        if (item.kind == detail::json_value::number_v) r.values.push_back(item.number);
    } else if (value && value->kind == detail::json_value::string_v) {
      double v = 0;
      if (parse_number(value->text, &v)) r.values.push_back(v);
    }
    if (r.values.empty()) {
      const detail::json_value* err = detail::member(obj, "error");
      if (err && err->kind == detail::json_value::string_v)
        r.error = error_line(split_lines(err->text), "");
      else if (value && value->kind == detail::json_value::string_v)
        r.error = clean_line(value->text);
      else
        r.error = "(no value)";
    }
    rows.push_back(std::move(r));
  }
  detail::merge_same_labels(&rows);
  return rows;
}

}  // namespace analysis
PROBE_END_NAMESPACE
