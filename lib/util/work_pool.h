#pragma once
// Threads shared by the claims of one verification and, inside a claim, by its seeds. run_claims'
// workers each take a claim; a worker with no claim left helps the claims still running with their
// seeds (parallel_for), so a verification's last claims do not run on one core while the other
// idles. The thread that calls parallel_for runs items itself, so no batch waits on helpers that are
// busy elsewhere. An item may call parallel_for itself (a seed's Monte Carlo batches): its caller runs
// the inner items too and then waits only for those a helper has taken and is running; an item that
// waits for nothing else always finishes, so nested batches cannot wait for each other.
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <list>
#include <mutex>

namespace cc {

class WorkPool {
 public:
  // fn(i) for every i in [0, n), on this thread and any helper; returns when every call has
  // returned. fn must not throw: an item keeps its own exception (std::exception_ptr) for the caller.
  void parallel_for(size_t n, const std::function<void(size_t)>& fn);
  // Runs other threads' items until finished() holds (checked before each item, under the pool's
  // lock; wake the helpers with notify() after a change it reads).
  void help_until(const std::function<bool()>& finished);
  void notify();

 private:
  struct Batch {
    const std::function<void(size_t)>* fn;
    size_t n, next = 0, unfinished;
  };
  // Takes the next item of the front batch (mu_ held); the batch leaves the queue with its last item.
  static size_t take(std::list<Batch*>& open, Batch& b);
  std::mutex mu_;
  std::condition_variable cv_;
  std::list<Batch*> open_;  // batches with items no thread has taken yet
};

}  // namespace cc
