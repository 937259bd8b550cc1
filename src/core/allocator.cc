#include "core/allocator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <new>
#include <string>

#include <sluice/error.h>

namespace sluice {

std::string_view ToString(StorageKind k) {
  switch (k) {
    case StorageKind::kHost: return "host";
    case StorageKind::kPinned: return "pinned";
    case StorageKind::kDevice: return "device";
  }
  return "unknown";
}

namespace {

constexpr size_t kAlignment = 64;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// Buffers this large are mapped directly rather than taken from malloc. Batches of decoded images
// change size every iteration; served by malloc, they fragment its heap (and glibc raises its own
// mmap threshold after the first large free), so resident memory creeps up epoch after epoch.
// Mapped buffers go back to the system when freed. Sanitizer builds keep malloc so that
// out-of-bounds accesses are still caught.
constexpr size_t kMapThreshold = size_t{128} << 10;

size_t PageRound(size_t n) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}

class HostAllocator : public Allocator {
 public:
  explicit HostAllocator(StorageKind reported, bool fallback) : kind_(reported), fallback_(fallback) {}
  void* Allocate(size_t bytes) override {
    if (bytes == 0) bytes = 1;
    if (!kSanitized && bytes >= kMapThreshold) {
      void* p = mmap(nullptr, PageRound(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw Error("out of host memory mapping " + std::to_string(bytes) + " bytes");
      return p;
    }
    size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    void* p = std::aligned_alloc(kAlignment, rounded);
    if (!p) throw Error("out of host memory allocating " + std::to_string(bytes) + " bytes");
    return p;
  }
  // `bytes` is what Allocate was given for `p` (Buffer keeps it as its capacity).
  void Deallocate(void* p, size_t bytes) override {
    if (!kSanitized && bytes >= kMapThreshold) munmap(p, PageRound(bytes));
    else std::free(p);
  }
  StorageKind kind() const override { return kind_; }
  bool is_fallback() const override { return fallback_; }

 private:
  StorageKind kind_;
  bool fallback_;
};

class UnavailableDeviceAllocator : public Allocator {
 public:
  void* Allocate(size_t) override {
    throw Error("device memory requested but this build or machine has no CUDA device");
  }
  void Deallocate(void*, size_t) override {}
  StorageKind kind() const override { return StorageKind::kDevice; }
  bool is_fallback() const override { return true; }
};

struct AllocatorTable {
  std::shared_ptr<Allocator> host = std::make_shared<HostAllocator>(StorageKind::kHost, false);
  std::shared_ptr<Allocator> pinned = std::make_shared<HostAllocator>(StorageKind::kPinned, true);
  std::shared_ptr<Allocator> device = std::make_shared<UnavailableDeviceAllocator>();
};

AllocatorTable& Table() {
  static AllocatorTable t;
  return t;
}

}  // namespace

Allocator& GetAllocator(StorageKind kind) {
  auto& t = Table();
  switch (kind) {
    case StorageKind::kHost: return *t.host;
    case StorageKind::kPinned: return *t.pinned;
    case StorageKind::kDevice: return *t.device;
  }
  return *t.host;
}

void SetAllocator(StorageKind kind, std::shared_ptr<Allocator> alloc) {
  auto& t = Table();
  switch (kind) {
    case StorageKind::kHost: t.host = std::move(alloc); break;
    case StorageKind::kPinned: t.pinned = std::move(alloc); break;
    case StorageKind::kDevice: t.device = std::move(alloc); break;
  }
}

}  // namespace sluice
