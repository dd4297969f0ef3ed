// The MPI records of a rank's manifest, as probe::mpi writes them (src/mpi/mpi_record.hpp):
// "message" (one point-to-point message sent or received) and "collective" (one collective
// call). compare_ranks.hpp links them across ranks. Standalone header.
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include <probe/formats/json.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

struct dump_message {
  bool collective = false;
  bool send = false;       // messages: sent by this rank (else received)
  std::string call;        // "MPI_Sendrecv"
  int peer = -1, tag = 0;  // messages: the other rank (of MPI_COMM_WORLD), the tag
  int root = -1;           // collectives: the root rank (-1: none)
  uint64_t order = 0;      // messages: its place among this rank's messages of one direction, peer and tag
  uint64_t bytes = 0;
  std::string hash, result_hash;  // content hashes (collectives: given, and got back)
  uint64_t seq = 0;        // the op in flight (0: none)
  std::string op;          // its "op#occurrence"
  std::vector<std::string> producers;  // sends: the op outputs that last wrote the buffer
  int recv_from = -3;      // MPI_Sendrecv's send: its receive's source (-1 none, -2 any, -3 not recorded)
  double wall_time = 0;
};

// A "message" or "collective" record; false when it lacks what linking needs.
inline bool read_message(const json::value& v, bool collective, dump_message* m) {
  m->collective = collective;
  m->call = v.get_string("call");
  m->bytes = static_cast<uint64_t>(v.get_int("bytes"));
  m->order = static_cast<uint64_t>(v.get_int("order"));
  m->hash = v.get_string("hash");
  m->seq = static_cast<uint64_t>(v.get_int("seq"));
  m->op = v.get_string("op");
  const json::value& t = v.get("wall_time");
  m->wall_time = t.is_number() ? t.as_double() : 0;
  const json::value& producers = v.get("producers");
  for (size_t i = 0; i < producers.size(); ++i)
    if (producers[i].is_string()) m->producers.push_back(producers[i].as_string());
  if (collective) {
    m->root = static_cast<int>(v.get_int("root"));
    m->result_hash = v.get_string("result_hash");
    return true;
  }
  const std::string dir = v.get_string("dir");
  const json::value& peer = v.get("peer");
  if ((dir != "send" && dir != "recv") || !peer.is_integer()) return false;
  m->send = dir == "send";
  m->peer = static_cast<int>(peer.as_int());
  m->tag = static_cast<int>(v.get_int("tag"));
  if (const json::value* from = v.find("recv_from"))
    m->recv_from = from->is_integer() && from->as_int() >= 0 && from->as_int() < (1 << 30) ? static_cast<int>(from->as_int())
                   : from->is_string() ? -2
                                       : -1;
  return true;
}

}  // namespace analysis
PROBE_END_NAMESPACE
