// The `git bisect start <bad> <good>` command for a change between two runs, when their labels
// say which revisions they measured: a commit hash in each label (7 to 40 hex digits with at
// least one letter and one digit, so that a date or a build number is not taken for one; the
// other label may hold a hash of the same length without either), else a date in
// each (YYYY-MM-DD or YYYYMMDD). For dates, the revisions are the last commit before the
// bad day ended and the last commit before the good day began: the range may hold a few
// commits more than the builds did, never fewer. Standalone header: plain `inline`.
#pragma once
#include <cctype>
#include <string>
#include <vector>

#include <probe/util/config.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

namespace detail {

inline bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// The runs of letters and digits in `label`, in order.
inline std::vector<std::string> alnum_tokens(const std::string& label) {
  std::vector<std::string> out;
  for (size_t i = 0; i < label.size();) {
    if (!is_alnum(label[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < label.size() && is_alnum(label[j])) ++j;
    out.push_back(label.substr(i, j - i));
    i = j;
  }
  return out;
}

inline bool lower_hex(const std::string& token) {
  for (char c : token)
    if (!std::isxdigit(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c))) return false;
  return true;
}

// The first token of `label` that is a commit hash, or "".
inline std::string commit_in_label(const std::string& label) {
  for (const std::string& token : alnum_tokens(label)) {
    bool letter = false, digit = false;
    for (char c : token) {
      letter = letter || std::isalpha(static_cast<unsigned char>(c));
      digit = digit || std::isdigit(static_cast<unsigned char>(c));
    }
    if (token.size() >= 7 && token.size() <= 40 && lower_hex(token) && letter && digit) return token;
  }
  return "";
}

// The first token of `label` made of `n` lower-case hex digits (digits only, or letters
// only), or "": the other side of a change whose label holds a hash of that length.
inline std::string hex_token_of_length(const std::string& label, size_t n) {
  for (const std::string& token : alnum_tokens(label))
    if (token.size() == n && lower_hex(token)) return token;
  return "";
}

// The first date in `label` as YYYY-MM-DD, or "": YYYY-MM-DD or YYYYMMDD with a plausible
// year, month and day, not part of a longer number.
inline std::string date_in_label(const std::string& label) {
  auto digits = [&](size_t at, size_t n) {
    if (at + n > label.size()) return false;
    for (size_t k = 0; k < n; ++k)
      if (!std::isdigit(static_cast<unsigned char>(label[at + k]))) return false;
    return true;
  };
  auto number = [&](size_t at, size_t n) { return std::stoi(label.substr(at, n)); };
  auto plausible = [&](int y, int m, int d) { return y >= 1970 && y <= 2199 && m >= 1 && m <= 12 && d >= 1 && d <= 31; };
  for (size_t i = 0; i < label.size(); ++i) {
    if (i > 0 && std::isdigit(static_cast<unsigned char>(label[i - 1]))) continue;
    if (digits(i, 4) && i + 10 <= label.size() && label[i + 4] == '-' && digits(i + 5, 2) && label[i + 7] == '-' &&
        digits(i + 8, 2) && !digits(i + 10, 1) && plausible(number(i, 4), number(i + 5, 2), number(i + 8, 2)))
      return label.substr(i, 10);
    if (digits(i, 8) && !digits(i + 8, 1) && plausible(number(i, 4), number(i + 4, 2), number(i + 6, 2)))
      return label.substr(i, 4) + "-" + label.substr(i + 4, 2) + "-" + label.substr(i + 6, 2);
  }
  return "";
}

}  // namespace detail

// The command, or "" when the labels do not say which revisions they are.
inline std::string bisect_command(const std::string& bad_label, const std::string& good_label) {
  std::string bad = detail::commit_in_label(bad_label), good = detail::commit_in_label(good_label);
  // A short hash may hold no letter (about 2% of 8-digit ones): beside a hash of its length
  // on the other side, a token of as many hex digits is one too.
  if (!bad.empty() && good.empty()) good = detail::hex_token_of_length(good_label, bad.size());
  if (bad.empty() && !good.empty()) bad = detail::hex_token_of_length(bad_label, good.size());
  if (!bad.empty() && !good.empty() && bad != good) return "git bisect start " + bad + " " + good;
  const std::string bad_day = detail::date_in_label(bad_label), good_day = detail::date_in_label(good_label);
  if (bad_day.empty() || good_day.empty() || bad_day < good_day) return "";
  return "git bisect start $(git rev-list -1 --before='" + bad_day + " 23:59:59' HEAD) $(git rev-list -1 --before='" +
         good_day + " 00:00:00' HEAD)";
}

}  // namespace analysis
PROBE_END_NAMESPACE
