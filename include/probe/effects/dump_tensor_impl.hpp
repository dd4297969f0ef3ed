// dump_tensor: definitions (see dump_tensor.hpp).
#pragma once
#include "dump_tensor.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API dump_result dump_tensor(const tensor_view& v, int dirfd, const std::string& name, size_t head_values,
                                   char* copy_to, size_t copy_bytes, bool hash) noexcept {
  dump_result res;
  // Once for the file's writes (a file-size limit: EFBIG, no SIGXFSZ); a copy for a
  // background writer writes nothing here.
  io_signal_guard quiet(!name.empty());
  try {
    tensor_reader reader;
    if (!reader.open(v)) {
      res.note = reader.error();
      return res;
    }
    atomic_file file;
    std::string header;  // written with the first chunk: one system call for small tensors
    if (!name.empty()) {
      header = npy::header_for(v);
      if (int e = file.open_at(dirfd, name)) {
        res.io_error = e;
        return res;
      }
    }
    const size_t item = v.itemsize();
    const int64_t total = v.numel();
    const int64_t head_n = static_cast<int64_t>(head_values) < total ? static_cast<int64_t>(head_values) : total;
    if (head_n > 0) res.head = tensor(v.type, dims{head_n});
    size_t head_bytes_left = static_cast<size_t>(head_n) * item;
    char* head_dst = head_n > 0 ? static_cast<char*>(res.head.data()) : nullptr;
    health acc;
    acc.valid = true;
    acc.type = v.type;
    // Statistics overlap the file writes only when there is a file and enough data to pay
    // for the hand-over (about 10 us per chunk).
    const stats_lease lease(file.fd() >= 0 && reader.total_bytes() >= k_parallel_stats_bytes ? stats_worker::claim() : nullptr);
    stats_worker* worker = lease.worker;
    if (copy_to && reader.total_bytes() != copy_bytes) {
      res.note = "tensor size changed while read";
      return res;
    }
    content_hash hasher;
    const void* p;
    size_t n;
    while (reader.next(&p, &n) && n) {
      if (hash) hasher.update(p, n);
      if (copy_to && n <= copy_bytes) {  // the statistics below then read the copy, hot in cache
        p = memcpy(copy_to, p, n);
        copy_to += n;
        copy_bytes -= n;
      }
      if (worker) {
        worker->start(p, n / item, v.type);
      } else {
        acc = merge_health(acc, compute_health(view_raw(p, v.type, dims{static_cast<int64_t>(n / item)})));
      }
      if (head_bytes_left) {
        const size_t take = n < head_bytes_left ? n : head_bytes_left;
        memcpy(head_dst, p, take);
        head_dst += take;
        head_bytes_left -= take;
      }
      int e = 0;
      if (file.fd() >= 0) {
        e = header.empty() ? write_all(file.fd(), p, n) : write_all2(file.fd(), header.data(), header.size(), p, n);
        header.clear();
      }
      if (worker) acc = merge_health(acc, worker->wait());  // before the reader reuses the chunk
      if (e) {
        res.io_error = e;
        return res;
      }
    }
    if (!reader.error().empty()) {
      res.note = reader.error();
      return res;
    }
    // A 0-d tensor or an empty one still gets its element count and type.
    acc.count = total;
    res.stats = acc;
    res.read_ok = true;
    if (hash) {
      res.hash = hasher.finish();
      res.have_hash = true;
    }
    if (file.fd() >= 0) {
      if (!header.empty()) {  // an empty tensor: the header is the whole file
        if (int e = write_all(file.fd(), header.data(), header.size())) {
          res.io_error = e;
          return res;
        }
      }
      if (int e = file.commit()) {
        res.io_error = e;
        return res;
      }
      res.written = true;
    }
  } catch (...) {
    res.note = "out of memory";
  }
  return res;
}

}  // namespace detail
PROBE_END_NAMESPACE
