// What the dump remembers between ops of one run: the inputs it wrote (an input whose bytes
// did not change since is not written again: its record names the earlier file, "same_as")
// and the ops it already wrote a note about. Internal header; used under the dump's lock.
#pragma once
#include <stdint.h>

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "../core/stats.hpp"
#include "../core/tensor_view.hpp"
#include "../util/int_text.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

class dump_memory {
 public:
  // Bounds memory on runs with many distinct inputs: past this, the oldest knowledge is
  // dropped at once (a later input is then written again, which is always correct).
  static constexpr size_t k_cap = 8192;

  struct written {
    uint64_t hash = 0;
    std::string file;
    health stats;
    int lane = -1;  // the background writer lane making the file (-1: already in place)
  };

  // An earlier input file with these bytes: the same address, or the same op name and slot,
  // with the same dtype, shape and content hash. nullptr when there is none.
  const written* find(const std::string& op, const std::string& slot, const tensor_view& v, uint64_t hash) const {
    for (const std::string& k : {by_address(v), by_name(op, slot, v)}) {
      auto it = files_.find(k);
      if (it != files_.end() && it->second.hash == hash) return &it->second;
    }
    return nullptr;
  }

  // The two names an input file is remembered under (its address, its op and slot).
  struct keys {
    std::string address, name;
  };
  static keys keys_of(const std::string& op, const std::string& slot, const tensor_view& v) {
    return keys{by_address(v), by_name(op, slot, v)};
  }

  void remember(const keys& k, const written& w) {
    if (files_.size() + 2 > k_cap) files_.clear();
    files_[k.address] = w;
    files_[k.name] = w;
  }

  // True the first time an op name is noted in this run.
  bool first_note(const std::string& op) {
    if (noted_.size() >= k_cap) return false;
    return noted_.insert(op).second;
  }

  void clear() {
    files_.clear();
    noted_.clear();
  }

 private:
  static void append_layout(std::string& k, const tensor_view& v) {
    char b[24];
    k += '|';
    k.append(b, static_cast<size_t>(put_uint(b, static_cast<unsigned long long>(v.type)) - b));
    for (int i = 0; i < v.ndim; ++i) {
      k += ',';
      k.append(b, static_cast<size_t>(put_int(b, v.shape[i]) - b));
    }
  }
  static std::string by_address(const tensor_view& v) {
    std::string k = "a";
    char b[24];
    k.append(b, static_cast<size_t>(put_uint(b, reinterpret_cast<uintptr_t>(v.data)) - b));
    k += '@';
    k.append(b, static_cast<size_t>(put_int(b, v.where.is_host() ? -1 : v.where.index) - b));
    append_layout(k, v);
    return k;
  }
  static std::string by_name(const std::string& op, const std::string& slot, const tensor_view& v) {
    std::string k = "n";
    k += op;
    k += '\0';
    k += slot;
    k += '\0';
    append_layout(k, v);
    return k;
  }

  std::unordered_map<std::string, written> files_;
  std::unordered_set<std::string> noted_;
};

}  // namespace detail
PROBE_END_NAMESPACE
