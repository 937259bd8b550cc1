#include "core/allocator.h"

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

class HostAllocator : public Allocator {
 public:
  explicit HostAllocator(StorageKind reported, bool fallback) : kind_(reported), fallback_(fallback) {}
  void* Allocate(size_t bytes) override {
    if (bytes == 0) bytes = 1;
    size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    void* p = std::aligned_alloc(kAlignment, rounded);
    if (!p) throw Error("out of host memory allocating " + std::to_string(bytes) + " bytes");
    return p;
  }
  void Deallocate(void* p, size_t) override { std::free(p); }
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
