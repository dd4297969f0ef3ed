// detail::plain_vector, the container behind op records, flag tokens, regex programs and
// graphs: element lifetimes, order under insert/erase, aliasing, and copies.
#include <doctest/doctest.h>
#include <probe/util/plain_vector.hpp>

#include <string>

namespace {

using probe::detail::plain_vector;

// Counts live objects so that a leaked or doubly destroyed element shows up.
struct counted {
  static int live;
  std::string text;
  explicit counted(std::string t = "") : text(std::move(t)) { ++live; }
  counted(const counted& o) : text(o.text) { ++live; }
  counted(counted&& o) noexcept : text(std::move(o.text)) { ++live; }
  counted& operator=(const counted&) = default;
  counted& operator=(counted&&) noexcept = default;
  ~counted() { --live; }
};
int counted::live = 0;

std::string joined(const plain_vector<counted>& v) {
  std::string s;
  for (const counted& c : v) s += c.text + ",";
  return s;
}

}  // namespace

TEST_CASE("plain_vector: growth keeps elements and destroys each exactly once") {
  {
    plain_vector<counted> v;
    CHECK(v.empty());
    for (int i = 0; i < 1000; ++i) v.emplace_back(std::to_string(i));
    CHECK(v.size() == 1000);
    CHECK(v.capacity() >= 1000);
    CHECK(counted::live == 1000);
    CHECK(v.front().text == "0");
    CHECK(v.back().text == "999");
    CHECK(v[500].text == "500");
    v.pop_back();
    CHECK(counted::live == 999);
    v.resize(10);
    CHECK(counted::live == 10);
    v.resize(12, counted("x"));
    CHECK(v.size() == 12);
    CHECK(v[11].text == "x");
    CHECK(counted::live == 12);
  }
  CHECK(counted::live == 0);
}

TEST_CASE("plain_vector: push_back of its own element while it reallocates") {
  plain_vector<std::string> v;
  v.push_back("a long string that does not fit the small-string buffer");
  while (v.size() < v.capacity()) v.push_back("filler");
  v.push_back(v[0]);  // full: the source moves during the reallocation unless copied first
  CHECK(v.back() == v[0]);
  CHECK(v.back() == "a long string that does not fit the small-string buffer");
}

TEST_CASE("plain_vector: insert and erase keep the order of the rest") {
  {
    plain_vector<counted> v;
    for (const char* s : {"a", "b", "c", "d", "e"}) v.emplace_back(s);
    v.erase(v.begin() + 1, v.begin() + 3);
    CHECK(joined(v) == "a,d,e,");
    v.erase(v.begin());
    CHECK(joined(v) == "d,e,");
    counted* at = v.insert(v.begin() + 1, counted("x"));
    CHECK(at == v.begin() + 1);
    CHECK(joined(v) == "d,x,e,");
    v.insert(v.begin(), counted("first"));
    v.insert(v.end(), counted("last"));
    CHECK(joined(v) == "first,d,x,e,last,");
    CHECK(v.erase(v.begin() + 2, v.begin() + 2) == v.begin() + 2);  // empty range: no change
    CHECK(counted::live == 5);
    v.clear();
    CHECK(v.empty());
    CHECK(counted::live == 0);
  }
  CHECK(counted::live == 0);
}

TEST_CASE("plain_vector: copies are deep, moves and swaps hand the buffer over") {
  plain_vector<std::string> a{"x", "y", "z"};
  plain_vector<std::string> b(a);
  b[0] = "changed";
  CHECK(a[0] == "x");
  plain_vector<std::string> c(static_cast<plain_vector<std::string>&&>(b));
  CHECK(b.empty());
  CHECK(c.size() == 3);
  CHECK(c[0] == "changed");
  a = c;
  CHECK(a[0] == "changed");
  a = a;  // self-assignment keeps the contents
  CHECK(a.size() == 3);
  plain_vector<std::string> d(2, "q");
  d.swap(a);
  CHECK(d.size() == 3);
  CHECK(a.size() == 2);
  CHECK(a[1] == "q");
  d.assign(4, "r");
  CHECK(d.size() == 4);
  CHECK(d[3] == "r");
  plain_vector<int> n(5);
  for (int x : n) CHECK(x == 0);  // value-initialised
  const int raw[] = {1, 2, 3};
  n.append(raw, raw + 3);
  CHECK(n.size() == 8);
  CHECK(n.data()[7] == 3);
}
