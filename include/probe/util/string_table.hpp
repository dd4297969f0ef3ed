// A string -> uint64_t hash table (open addressing, linear probing) for the few maps the
// implementation keeps: op occurrences, interned names, graph outputs. std::map would add
// ~100 ms to every TU that includes probe.hpp in header-only mode; this adds almost nothing
// (std::string is complete anyway, std::vector is cheap).
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

class string_table {
 public:
  // The value for key, inserted as 0 when missing (like std::map::operator[]).
  uint64_t& operator[](const std::string& key) {
    if ((count_ + 1) * 4 > slots_.size() * 3) grow();
    slot& s = slots_[probe_for(key, slots_)];
    if (!s.used) {
      s.used = true;
      s.key = key;
      s.value = 0;
      ++count_;
    }
    return s.value;
  }
  // nullptr when missing.
  const uint64_t* find(const std::string& key) const noexcept {
    if (slots_.empty()) return nullptr;
    const slot& s = slots_[probe_for(key, slots_)];
    return s.used ? &s.value : nullptr;
  }
  size_t size() const noexcept { return count_; }
  void clear() {
    slots_.clear();
    count_ = 0;
  }

 private:
  struct slot {
    std::string key;
    uint64_t value = 0;
    bool used = false;
  };
  static uint64_t hash(const std::string& s) noexcept {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h;
  }
  // The slot holding key, or the empty slot where it belongs.
  static size_t probe_for(const std::string& key, const std::vector<slot>& slots) noexcept {
    const size_t mask = slots.size() - 1;
    size_t i = static_cast<size_t>(hash(key)) & mask;
    while (slots[i].used && slots[i].key != key) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<slot> bigger(slots_.empty() ? 16 : slots_.size() * 2);
    for (slot& s : slots_)
      if (s.used) {
        slot& d = bigger[probe_for(s.key, bigger)];
        d.used = true;
        d.key.swap(s.key);
        d.value = s.value;
      }
    slots_.swap(bigger);
  }

  std::vector<slot> slots_;  // size is 0 or a power of two
  size_t count_ = 0;
};

}  // namespace detail
PROBE_END_NAMESPACE
