#include "util/work_pool.h"

namespace cc {

size_t WorkPool::take(std::list<Batch*>& open, Batch& b) {
  const size_t i = b.next++;
  if (b.next == b.n) open.remove(&b);
  return i;
}

void WorkPool::parallel_for(size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  Batch b{&fn, n, 0, n};
  std::unique_lock<std::mutex> lock(mu_);
  open_.push_back(&b);
  cv_.notify_all();
  while (b.next < b.n) {
    const size_t i = take(open_, b);
    lock.unlock();
    fn(i);
    lock.lock();
    --b.unfinished;
  }
  cv_.wait(lock, [&] { return b.unfinished == 0; });  // the items helpers took
}

void WorkPool::help_until(const std::function<bool()>& finished) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (finished()) return;
    if (!open_.empty()) {
      Batch& b = *open_.front();
      const size_t i = take(open_, b);
      lock.unlock();
      (*b.fn)(i);
      lock.lock();
      if (--b.unfinished == 0) cv_.notify_all();
      continue;
    }
    cv_.wait(lock);
  }
}

void WorkPool::notify() {
  std::lock_guard<std::mutex> lock(mu_);
  cv_.notify_all();
}

}  // namespace cc
