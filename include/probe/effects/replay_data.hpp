// The values a replayed kernel reads: a snapshot's recorded tensors, read from its .npy files
// and checked against what snapshot.json says, or fake ones (--probe_replay_fake_data):
// seeded uniform values with the recorded shape and dtype, in the range the recorded stats
// give. Internal header.
#pragma once
#include <stdint.h>

#include <string>

#include "../core/tensor.hpp"
#include "../formats/snapshot.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Reads snapshot tensor t of the folder dir (an implicit input recorded after its kernel: its
// prior state, from the pieces of its producers' snapshot files); false with *error ("DIR/in.x.npy: truncated
// while reading the data", "... holds float64[8], snapshot.json records float32[8]").
PROBE_API bool read_recorded(const std::string& dir, const snapshot::tensor_entry& t, tensor* out, std::string* error) noexcept;

// Uniform values in [min, max] of the recorded stats ([-1, 1] without them; integers in
// [-8, 8], unsigned ones in [0, 8]); the same seed and names give the same values.
PROBE_API tensor fake_tensor(const snapshot::tensor_entry& t, const std::string& op_key, uint64_t seed);

}  // namespace detail
PROBE_END_NAMESPACE
