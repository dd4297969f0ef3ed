// What probe::mpi writes about one MPI call into the rank's manifest: a "message" record per
// point-to-point message (its direction, peer, tag, bytes, content hash, its place among the
// messages of that peer and tag, the op in flight and, for a send, the op outputs that last
// wrote its buffer) and a "collective" record per collective call. probe compare links a
// receive to the send it matched through (peer, tag, order): MPI delivers the messages of one
// sender and tag in the order they were sent. Only the PMPI wrappers include this.
#pragma once
#include <limits.h>
#include <mpi.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <probe/probe.hpp>
#include <probe/core/context.hpp>
#include <probe/effects/dump.hpp>
#include <probe/formats/json_write.hpp>
#include <probe/util/hash.hpp>
#include <probe/util/sync.hpp>

namespace probe_mpi {

using probe::detail::content_hash;

// A buffer of `count` elements of `type`, as the bytes MPI moves: the packed form.
struct buffer_bytes {
  uint64_t bytes = 0;
  uint64_t hash = 0;
  const void* lo = nullptr;  // the contiguous byte range, when the type is contiguous
};

inline buffer_bytes read_buffer(const void* buf, int count, MPI_Datatype type) {
  buffer_bytes b;
  int size = 0;
  if (count <= 0 || !buf || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0) return b;
  b.bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(size);
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_true_extent(type, &lb, &extent);
  if (extent == size) {  // contiguous: hash in place
    b.lo = static_cast<const char*>(buf) + lb;
    b.hash = content_hash::of(b.lo, b.bytes);
    return b;
  }
  // Strided or struct types: the packed bytes are what the receiver sees.
  std::vector<char> packed(b.bytes);
  int at = 0;
  if (PMPI_Pack(buf, count, type, packed.data(), static_cast<int>(packed.size()), &at, MPI_COMM_SELF) != MPI_SUCCESS)
    return buffer_bytes();
  b.hash = content_hash::of(packed.data(), static_cast<size_t>(at));
  b.bytes = static_cast<uint64_t>(at);
  return b;
}

// A rank of `comm` as a rank of MPI_COMM_WORLD (the rank folders are named by it).
inline int world_rank(MPI_Comm comm, int r) {
  if (comm == MPI_COMM_WORLD || r < 0) return r;
  MPI_Group g, w;
  int out = r;
  if (PMPI_Comm_group(comm, &g) != MPI_SUCCESS) return r;
  if (PMPI_Comm_group(MPI_COMM_WORLD, &w) == MPI_SUCCESS) {
    PMPI_Group_translate_ranks(g, 1, &r, w, &out);
    PMPI_Group_free(&w);
  }
  PMPI_Group_free(&g);
  return out == MPI_UNDEFINED ? r : out;
}

class recorder {
 public:
  static recorder& get() {
    static recorder* r = new recorder();  // never destroyed: MPI calls may come from atexit
    return *r;
  }

  // One point-to-point message sent (send) or received (!send) by this rank.
  // recv_from (the send half of MPI_Sendrecv): the rank its receive half takes from, -1 for
  // MPI_PROC_NULL (the call then waits for no one), -2 for MPI_ANY_SOURCE; INT_MIN: not written.
  void message(bool send, const char* call, int peer, int tag, const buffer_bytes& b,
               int recv_from = INT_MIN) noexcept {
    try {
      if (!probe::detail::dump_active()) return;
      uint64_t order;
      {
        probe::detail::lock_guard<probe::detail::mutex> g(m_);
        order = orders_[std::make_tuple(send, peer, tag)]++;
      }
      std::string line = "{\"record\":\"message\",\"dir\":\"";
      line += send ? "send" : "recv";
      line += "\",\"call\":\"";
      line += call;
      line += "\",\"peer\":" + std::to_string(peer) + ",\"tag\":" + std::to_string(tag) +
              ",\"bytes\":" + std::to_string(b.bytes) + ",\"order\":" + std::to_string(order);
      append_hash(line, "hash", b.hash);
      if (recv_from == -1) line += ",\"recv_from\":null";
      else if (recv_from == -2) line += ",\"recv_from\":\"any\"";
      else if (recv_from != INT_MIN) line += ",\"recv_from\":" + std::to_string(recv_from);
      append_op(line);
      if (send && b.lo) append_producers(line, b);
      append_time(line);
      probe::detail::dump_write_run_file(std::string(), std::string(), line);
    } catch (...) {
    }
  }

  // A collective call: what this rank gave (`sent`) and what it got back (`result`).
  void collective(const char* call, int root, const buffer_bytes& sent, const buffer_bytes& result) noexcept {
    try {
      if (!probe::detail::dump_active()) return;
      uint64_t order;
      {
        probe::detail::lock_guard<probe::detail::mutex> g(m_);
        order = collectives_++;
      }
      std::string line = "{\"record\":\"collective\",\"call\":\"";
      line += call;
      line += "\",\"root\":" + std::to_string(root) + ",\"order\":" + std::to_string(order) +
              ",\"bytes\":" + std::to_string(sent.bytes) + ",\"result_bytes\":" + std::to_string(result.bytes);
      if (sent.bytes) append_hash(line, "hash", sent.hash);
      if (result.bytes) append_hash(line, "result_hash", result.hash);
      append_op(line);
      if (sent.lo) append_producers(line, sent);
      append_time(line);
      probe::detail::dump_write_run_file(std::string(), std::string(), line);
    } catch (...) {
    }
  }

 private:
  static void append_hash(std::string& line, const char* name, uint64_t h) {
    char hex[16];
    probe::detail::hash_hex(h, hex);
    line += ",\"";
    line += name;
    line += "\":\"";
    line.append(hex, 16);
    line += '"';
  }

  // The innermost op open on this thread: the receive belongs to its computation.
  static void append_op(std::string& line) {
    const probe::detail::op_record* r = probe::detail::current_op();
    if (!r) return;
    line += ",\"seq\":" + std::to_string(r->seq) + ",\"op\":";
    probe::json::write_string(line, r->name + "#" + std::to_string(r->occurrence));
  }

  // The op outputs that last wrote the bytes being sent (the data-flow map the dump keeps).
  static void append_producers(std::string& line, const buffer_bytes& b) {
    const probe::tensor_view v = probe::view(static_cast<const unsigned char*>(b.lo), static_cast<size_t>(b.bytes));
    std::vector<probe::detail::producer_map::piece> pieces;
    {
      probe::detail::op_context& c = probe::detail::context();
      probe::detail::lock_guard<probe::detail::mutex> g(c.m);
      pieces = c.producers.find(v);
    }
    if (pieces.empty()) return;
    line += ",\"producers\":[";
    for (size_t i = 0; i < pieces.size(); ++i) {
      if (i) line += ',';
      probe::json::write_string(line, pieces[i].key);
    }
    line += ']';
  }

  static void append_time(std::string& line) {
    const int64_t ns = probe::detail::wall_ns();
    char t[48];
    snprintf(t, sizeof t, ",\"wall_time\":%lld.%06lld}\n", static_cast<long long>(ns / 1000000000),
             static_cast<long long>(ns % 1000000000 / 1000));
    line += t;
  }

  probe::detail::mutex m_;
  std::map<std::tuple<bool, int, int>, uint64_t> orders_;
  uint64_t collectives_ = 0;
};

}  // namespace probe_mpi
