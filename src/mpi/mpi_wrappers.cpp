// probe::mpi (libprobe_mpi.a): PMPI wrappers, the way MPI profilers intercept MPI. Linked
// before the MPI library, these definitions of MPI_Send, MPI_Recv, ... take the program's
// calls and forward them to PMPI_*. With dumping and timing off a wrapper costs the one branch
// every probe mark costs; on, it times the call (a scope named after it) and writes what
// mpi_record.hpp describes into the rank's manifest. All the wrappers are in this one file:
// the library's link option (--undefined=probe_mpi_linked) pulls it in whole, even when the
// MPI library comes first on the link line.
#include <mutex>
#include <probe/effects/timing.hpp>
#include <probe/effects/timing_ranks.hpp>
#include <unordered_map>

#include "../compiled.hpp"
#include "mpi_record.hpp"

extern "C" {
// What the link option asks for; its presence in a program says the wrappers are in it.
int probe_mpi_linked = 1;
}

namespace {

using probe::detail::gate_on;
using probe::detail::scope_site;

constexpr unsigned k_gate = probe::detail::gate_ops | probe::detail::gate_timing;

#define PROBE_MPI_SITE(name)                                       \
  static const scope_site site{name, __FILE__, name, __LINE__, 0}; \
  const probe::detail::scope_guard timed(&site)

// A receive posted with MPI_Irecv, recorded when a wait completes it.
struct pending_recv {
  void* buf;
  int count;
  MPI_Datatype type;
  MPI_Comm comm;
  const char* call;
};

std::mutex g_pending_m;
std::unordered_map<MPI_Request, pending_recv>& pending() {
  static auto* p = new std::unordered_map<MPI_Request, pending_recv>();
  return *p;
}

void record_send(const char* call, const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                 int recv_from = INT_MIN) {
  if (dest == MPI_PROC_NULL) {
    // MPI_Sendrecv to MPI_PROC_NULL that receives from a rank (the last rank of a chain): its
    // send half is recorded with peer -1, so that a rank left waiting in it shows as such.
    if (recv_from == INT_MIN || recv_from == -1) return;
    probe_mpi::recorder::get().message(true, call, -1, tag, probe_mpi::buffer_bytes(), recv_from);
    return;
  }
  probe_mpi::recorder::get().message(true, call, probe_mpi::world_rank(comm, dest), tag,
                                     probe_mpi::read_buffer(buf, count, type), recv_from);
}

// Where the receive half of MPI_Sendrecv takes from, as its send record says (mpi_record.hpp).
int receive_side(int source, MPI_Comm comm) {
  if (source == MPI_PROC_NULL) return -1;
  if (source == MPI_ANY_SOURCE) return -2;
  return probe_mpi::world_rank(comm, source);
}

void record_recv(const char* call, const void* buf, MPI_Datatype type, MPI_Comm comm, const MPI_Status& st) {
  if (st.MPI_SOURCE == MPI_PROC_NULL || st.MPI_SOURCE == MPI_ANY_SOURCE) return;
  int got = 0;
  if (PMPI_Get_count(&st, type, &got) != MPI_SUCCESS || got == MPI_UNDEFINED) got = 0;
  probe_mpi::recorder::get().message(false, call, probe_mpi::world_rank(comm, st.MPI_SOURCE), st.MPI_TAG,
                                     probe_mpi::read_buffer(buf, got, type));
}

// A request completed by a wait: a pending receive is recorded now that its bytes are there.
void complete(MPI_Request req, const MPI_Status& st) {
  pending_recv p;
  {
    std::lock_guard<std::mutex> g(g_pending_m);
    auto it = pending().find(req);
    if (it == pending().end()) return;
    p = it->second;
    pending().erase(it);
  }
  record_recv(p.call, p.buf, p.type, p.comm, st);
}

// With timing on, the ranks leave a barrier together: the instant each takes then is one
// instant, which aligns their clocks in the merged trace (timing_ranks.hpp).
void take_sync_instant() {
  if (!gate_on(probe::detail::gate_timing)) return;
  if (PMPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS) probe::detail::g_rank_sync_ns = probe::detail::mono_ns();
}

}  // namespace

// Each MPI_X tests the flags and jumps: to PMPI_X when they are off, to on_MPI_X, which
// records, when some is on. The slow half is out of line so that the fast one saves no
// register and builds no frame: both calls are tail calls (benchmarks/README.md, "probe::mpi").
// on_MPI_X tests again with gate_on, which parses the flags on the first call.
#define PROBE_MPI_SLOW __attribute__((noinline))

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) take_sync_instant();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) take_sync_instant();
  return rc;
}

static PROBE_MPI_SLOW int on_MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (!gate_on(k_gate)) return PMPI_Send(buf, count, type, dest, tag, comm);
  PROBE_MPI_SITE("MPI_Send");
  record_send("MPI_Send", buf, count, type, dest, tag, comm);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0)) return PMPI_Send(buf, count, type, dest, tag, comm);
  return on_MPI_Send(buf, count, type, dest, tag, comm);
}

static PROBE_MPI_SLOW int on_MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                                       MPI_Comm comm) {
  if (!gate_on(k_gate)) return PMPI_Ssend(buf, count, type, dest, tag, comm);
  PROBE_MPI_SITE("MPI_Ssend");
  record_send("MPI_Ssend", buf, count, type, dest, tag, comm);
  return PMPI_Ssend(buf, count, type, dest, tag, comm);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0)) return PMPI_Ssend(buf, count, type, dest, tag, comm);
  return on_MPI_Ssend(buf, count, type, dest, tag, comm);
}

static PROBE_MPI_SLOW int on_MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                                      MPI_Status* status) {
  if (!gate_on(k_gate)) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  PROBE_MPI_SITE("MPI_Recv");
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
  if (rc == MPI_SUCCESS) record_recv("MPI_Recv", buf, type, comm, *st);
  return rc;
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0))
    return PMPI_Recv(buf, count, type, source, tag, comm, status);
  return on_MPI_Recv(buf, count, type, source, tag, comm, status);
}

static PROBE_MPI_SLOW int on_MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                                          int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                                          int recvtag, MPI_Comm comm, MPI_Status* status) {
  if (!gate_on(k_gate))
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
  PROBE_MPI_SITE("MPI_Sendrecv");
  record_send("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, comm, receive_side(source, comm));
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                               recvtag, comm, st);
  if (rc == MPI_SUCCESS) record_recv("MPI_Sendrecv", recvbuf, recvtype, comm, *st);
  return rc;
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0))
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
  return on_MPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
}

static PROBE_MPI_SLOW int on_MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                                       MPI_Request* req) {
  if (!gate_on(k_gate)) return PMPI_Isend(buf, count, type, dest, tag, comm, req);
  PROBE_MPI_SITE("MPI_Isend");
  // The buffer may not change until the send completes: its bytes now are the message.
  record_send("MPI_Isend", buf, count, type, dest, tag, comm);
  return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0))
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
  return on_MPI_Isend(buf, count, type, dest, tag, comm, req);
}

static PROBE_MPI_SLOW int on_MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                                       MPI_Request* req) {
  if (!gate_on(k_gate)) return PMPI_Irecv(buf, count, type, source, tag, comm, req);
  PROBE_MPI_SITE("MPI_Irecv");
  const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
  if (rc == MPI_SUCCESS && probe::detail::dump_active()) {
    try {
      std::lock_guard<std::mutex> g(g_pending_m);
      pending()[*req] = pending_recv{buf, count, type, comm, "MPI_Irecv"};
    } catch (...) {
    }
  }
  return rc;
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0))
    return PMPI_Irecv(buf, count, type, source, tag, comm, req);
  return on_MPI_Irecv(buf, count, type, source, tag, comm, req);
}

static PROBE_MPI_SLOW int on_MPI_Wait(MPI_Request* req, MPI_Status* status) {
  if (!gate_on(k_gate)) return PMPI_Wait(req, status);
  PROBE_MPI_SITE("MPI_Wait");
  const MPI_Request r = *req;
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Wait(req, st);
  if (rc == MPI_SUCCESS) complete(r, *st);
  return rc;
}

int MPI_Wait(MPI_Request* req, MPI_Status* status) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0)) return PMPI_Wait(req, status);
  return on_MPI_Wait(req, status);
}

static PROBE_MPI_SLOW int on_MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
  if (!gate_on(k_gate)) return PMPI_Waitall(count, reqs, statuses);
  PROBE_MPI_SITE("MPI_Waitall");
  std::vector<MPI_Request> before(reqs, reqs + (count > 0 ? count : 0));
  std::vector<MPI_Status> own(before.size());
  MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? own.data() : statuses;
  const int rc = PMPI_Waitall(count, reqs, st);
  if (rc == MPI_SUCCESS)
    for (size_t i = 0; i < before.size(); ++i) complete(before[i], st[i]);
  return rc;
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0)) return PMPI_Waitall(count, reqs, statuses);
  return on_MPI_Waitall(count, reqs, statuses);
}

static PROBE_MPI_SLOW int on_MPI_Barrier(MPI_Comm comm) {
  if (!gate_on(k_gate)) return PMPI_Barrier(comm);
  PROBE_MPI_SITE("MPI_Barrier");
  const int rc = PMPI_Barrier(comm);
  probe_mpi::recorder::get().collective("MPI_Barrier", -1, probe_mpi::buffer_bytes(), probe_mpi::buffer_bytes());
  return rc;
}

int MPI_Barrier(MPI_Comm comm) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0)) return PMPI_Barrier(comm);
  return on_MPI_Barrier(comm);
}

static PROBE_MPI_SLOW int on_MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (!gate_on(k_gate)) return PMPI_Bcast(buf, count, type, root, comm);
  PROBE_MPI_SITE("MPI_Bcast");
  int me = -1;
  PMPI_Comm_rank(comm, &me);
  const probe_mpi::buffer_bytes sent =
      me == root ? probe_mpi::read_buffer(buf, count, type) : probe_mpi::buffer_bytes();
  const int rc = PMPI_Bcast(buf, count, type, root, comm);
  if (rc == MPI_SUCCESS)
    probe_mpi::recorder::get().collective("MPI_Bcast", probe_mpi::world_rank(comm, root), sent,
                                          probe_mpi::read_buffer(buf, count, type));
  return rc;
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0)) return PMPI_Bcast(buf, count, type, root, comm);
  return on_MPI_Bcast(buf, count, type, root, comm);
}

static PROBE_MPI_SLOW int on_MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                        int root, MPI_Comm comm) {
  if (!gate_on(k_gate)) return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  PROBE_MPI_SITE("MPI_Reduce");
  int me = -1;
  PMPI_Comm_rank(comm, &me);
  const probe_mpi::buffer_bytes sent = probe_mpi::read_buffer(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, type);
  const int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  if (rc == MPI_SUCCESS)
    probe_mpi::recorder::get().collective(
        "MPI_Reduce", probe_mpi::world_rank(comm, root), sent,
        me == root ? probe_mpi::read_buffer(recvbuf, count, type) : probe_mpi::buffer_bytes());
  return rc;
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0))
    return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  return on_MPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

static PROBE_MPI_SLOW int on_MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                           MPI_Comm comm) {
  if (!gate_on(k_gate)) return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  PROBE_MPI_SITE("MPI_Allreduce");
  const probe_mpi::buffer_bytes sent = probe_mpi::read_buffer(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, type);
  const int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  if (rc == MPI_SUCCESS)
    probe_mpi::recorder::get().collective("MPI_Allreduce", -1, sent, probe_mpi::read_buffer(recvbuf, count, type));
  return rc;
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0))
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  return on_MPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

static PROBE_MPI_SLOW int on_MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (!gate_on(k_gate)) return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  PROBE_MPI_SITE("MPI_Allgather");
  int size = 1;
  PMPI_Comm_size(comm, &size);
  const probe_mpi::buffer_bytes sent =
      sendbuf == MPI_IN_PLACE ? probe_mpi::buffer_bytes() : probe_mpi::read_buffer(sendbuf, sendcount, sendtype);
  const int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (rc == MPI_SUCCESS)
    probe_mpi::recorder::get().collective("MPI_Allgather", -1, sent,
                                          probe_mpi::read_buffer(recvbuf, recvcount * size, recvtype));
  return rc;
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (PROBE_LIKELY((probe::detail::gate_load() & k_gate) == 0))
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return on_MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

}  // extern "C"
