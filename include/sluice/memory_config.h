// Buffer growth/shrink policy. Part of the stable public API.
#pragma once

namespace sluice {

// How buffers resize. A buffer that must grow allocates max(new_bytes, capacity * growth_factor);
// a non-pinned host buffer whose new size is below capacity * host_shrink_threshold is reallocated
// at the exact size (host buffers from 64 KiB up are rounded to size classes, at most 22% larger,
// so that freed blocks are reused exactly and the heap does not fragment). Pinned and device
// buffers never shrink.
struct MemoryConfig {
  double host_shrink_threshold = 0.9;  // [0, 1]; 0 = never shrink, 1 = shrink whenever smaller
  double host_growth_factor = 1.0;     // [1, 4]
  double device_growth_factor = 1.0;   // [1, 4]; also used for pinned buffers

  // Reads SLUICE_HOST_BUFFER_SHRINK_THRESHOLD, SLUICE_HOST_BUFFER_GROWTH_FACTOR,
  // SLUICE_DEVICE_BUFFER_GROWTH_FACTOR and SLUICE_BUFFER_GROWTH_FACTOR (sets both growth factors;
  // the specific variables win), each falling back to the same name with the DALI_ prefix.
  // Throws sluice::Error naming the variable for a non-numeric or out-of-range value.
  static MemoryConfig FromEnvironment();
  // Throws sluice::Error if a field is out of range.
  void Validate() const;

  // The process-wide default: what a Pipeline uses when PipelineOptions::memory is unset, read
  // when the Pipeline is constructed (a running pipeline keeps the policy it started with). It is
  // FromEnvironment() with the values given to the setters below on top, so a setter wins over
  // its environment variable, as DALI's nvidia.dali.backend functions do. Thread-safe.
  static MemoryConfig ProcessDefault();
  // DALI's backend.SetHostBufferShrinkThreshold, SetHostBufferGrowthFactor,
  // SetDeviceBufferGrowthFactor and SetBufferGrowthFactor (host and device). Each validates its
  // value like the environment variable (threshold in [0, 1], growth factors in [1, 4]) and throws
  // sluice::Error for a value out of range, changing nothing.
  static void SetDefaultHostShrinkThreshold(double threshold);
  static void SetDefaultHostGrowthFactor(double factor);
  static void SetDefaultDeviceGrowthFactor(double factor);
  static void SetDefaultGrowthFactor(double factor);
  // Forgets every value given to the setters (the environment alone decides again).
  static void ResetDefaults();
};

}  // namespace sluice
