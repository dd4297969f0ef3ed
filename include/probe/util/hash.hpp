// A fast 64-bit content hash of bytes: the dump records it for every tensor ("hash"), data-flow
// edges are checked with it (is the buffer still what its producer wrote?) and unchanged inputs
// are dumped once. Not cryptographic: it tells buffers apart, it does not resist forgery.
//
// Four independent lanes of 8-byte words, each a multiply and an xor-shift, so that the
// multiplies of a 32-byte block overlap (about 1 byte per cycle per lane on x86-64); the
// lanes, the tail and the length are folded at the end. Streaming (update in pieces of any
// size) gives the same value as one call over the whole. Light header.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

class content_hash {
 public:
  void update(const void* data, size_t n) noexcept {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    total_ += n;
    if (fill_) {
      const size_t take = n < 32 - fill_ ? n : 32 - fill_;
      memcpy(buf_ + fill_, p, take);
      fill_ += take;
      p += take;
      n -= take;
      if (fill_ < 32) return;
      block(buf_);
      fill_ = 0;
    }
    uint64_t a = lane_[0], b = lane_[1], c = lane_[2], d = lane_[3];
    for (; n >= 32; p += 32, n -= 32) {
      a = mix(a, load(p));
      b = mix(b, load(p + 8));
      c = mix(c, load(p + 16));
      d = mix(d, load(p + 24));
    }
    lane_[0] = a, lane_[1] = b, lane_[2] = c, lane_[3] = d;
    if (n) {
      memcpy(buf_, p, n);
      fill_ = n;
    }
  }

  uint64_t finish() const noexcept {
    uint64_t h = total_ * k_mul ^ 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 4; ++i) h = fold(h ^ fold(lane_[i] + static_cast<uint64_t>(i)));
    size_t i = 0;
    for (; i + 8 <= fill_; i += 8) h = fold(h ^ load(buf_ + i));
    if (i < fill_) {
      uint64_t w = 0;
      memcpy(&w, buf_ + i, fill_ - i);
      h = fold(h ^ w ^ (static_cast<uint64_t>(fill_ - i) << 59));
    }
    return fold(h);
  }

  static uint64_t of(const void* data, size_t n) noexcept {
    content_hash h;
    h.update(data, n);
    return h.finish();
  }

 private:
  static constexpr uint64_t k_mul = 0xff51afd7ed558ccdull;
  static uint64_t load(const unsigned char* p) noexcept {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
  }
  static uint64_t mix(uint64_t lane, uint64_t w) noexcept {
    lane = (lane ^ w) * k_mul;
    return lane ^ (lane >> 29);
  }
  static uint64_t fold(uint64_t h) noexcept {
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    h *= k_mul;
    return h ^ (h >> 32);
  }
  void block(const unsigned char* p) noexcept {
    for (int i = 0; i < 4; ++i) lane_[i] = mix(lane_[i], load(p + 8 * i));
  }

  uint64_t lane_[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull};
  uint64_t total_ = 0;
  unsigned char buf_[32] = {};
  size_t fill_ = 0;
};

// "0123456789abcdef": 16 lowercase hex digits, as the manifest writes hashes.
inline void hash_hex(uint64_t h, char out[16]) noexcept {
  static const char digits[] = "0123456789abcdef";
  for (int i = 15; i >= 0; --i, h >>= 4) out[i] = digits[h & 15];
}

}  // namespace detail
PROBE_END_NAMESPACE
