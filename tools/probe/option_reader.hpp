// Reading a verb's command line: `--name value` and `--name=value`, flags, numbers with a
// range check, and `--` ending the options. Each error is one sentence for the user.
#pragma once
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

namespace probe_cli {

class option_reader {
 public:
  // argv[0] is the verb; the words start at argv[1].
  option_reader(int argc, char** argv) : words_(argv + 1, argv + argc) {}

  // Moves to the next word; false at the end or at `--` (the words after it are rest()).
  bool next() {
    if (at_ + 1 >= static_cast<long>(words_.size())) {
      at_ = static_cast<long>(words_.size());
      return false;
    }
    ++at_;
    if (words_[static_cast<size_t>(at_)] == "--") {
      dashdash_ = true;
      return false;
    }
    return true;
  }
  bool saw_dashdash() const { return dashdash_; }
  // The words after `--`.
  std::vector<std::string> rest() const {
    if (!dashdash_) return {};
    return std::vector<std::string>(words_.begin() + at_ + 1, words_.end());
  }

  const std::string& word() const { return words_[static_cast<size_t>(at_)]; }
  bool is_option() const { return word().size() > 1 && word()[0] == '-'; }
  bool is(const char* name) const { return word() == name; }
  bool flag(const char* name) const { return word() == name; }

  // `--name value` or `--name=value`. True when the word is this option (then *error is set
  // if its value is missing).
  bool option(const char* name, std::string* value, std::string* error) {
    const size_t n = strlen(name);
    const std::string& w = word();
    if (w.compare(0, n, name) != 0) return false;
    if (w.size() > n && w[n] == '=') {
      *value = w.substr(n + 1);
      return true;
    }
    if (w.size() != n) return false;
    if (at_ + 1 >= static_cast<long>(words_.size()) || words_[static_cast<size_t>(at_ + 1)] == "--") {
      *error = std::string(name) + " needs a value";
      return true;
    }
    *value = words_[static_cast<size_t>(++at_)];
    return true;
  }

  bool number(const char* name, double* out, double lo, double hi, std::string* error) {
    std::string text;
    if (!option(name, &text, error)) return false;
    if (!error->empty()) return true;
    char* end = nullptr;
    const double v = strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(v >= lo && v <= hi))
      *error = std::string(name) + " takes a number from " + short_number(lo) + " to " + short_number(hi) +
               ", not '" + text + "'";
    else
      *out = v;
    return true;
  }

  bool count(const char* name, size_t* out, size_t lo, size_t hi, std::string* error) {
    std::string text;
    if (!option(name, &text, error)) return false;
    if (!error->empty()) return true;
    char* end = nullptr;
    const long long v = strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || v < static_cast<long long>(lo) || v > static_cast<long long>(hi))
      *error = std::string(name) + " takes a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
               ", not '" + text + "'";
    else
      *out = static_cast<size_t>(v);
    return true;
  }

 private:
  static std::string short_number(double v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%g", v);
    return buf;
  }

  std::vector<std::string> words_;
  long at_ = -1;
  bool dashdash_ = false;
};

}  // namespace probe_cli
