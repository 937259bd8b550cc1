// NeMo's ASR manifests (readers.nemo_asr): JSON lines, one object per utterance,
//   {"audio_filepath": "a/b.wav", "duration": 3.45, "offset": 0.5, "text": "the transcript"}
// where only audio_filepath is required (DALI's reading, dali/operators/reader/loader/
// nemo_asr_loader.cc): duration and offset are seconds (numbers), text a string (UTF-8), other
// keys are ignored.
//
// Parsed with simdjson's DOM API, line by line: every line is validated whole (on-demand parsing
// would only look at the keys it visits, and would accept a line that is broken elsewhere), the
// line number comes for free, and NeMo's lines are small (DOM's tape costs nothing noticeable;
// about 1 GB/s here).
//
// Unlike DALI, which skips a line that is not a JSON object or lacks audio_filepath with a
// warning, such a line is an error naming the manifest and the line number: a dataset silently
// losing utterances is worse than one that stops.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

struct NemoManifestEntry {
  std::string audio_filepath;  // as the manifest writes it (see ResolveNemoAudioPath)
  double duration = -1;        // seconds, >= 0; -1: not given (the whole stream)
  double offset = 0;           // seconds
  std::string text;            // empty when not given or when the text is not read
  int64_t line = 0;            // 1-based line of the manifest
};

struct NemoManifestFilter {
  double min_duration = 0;  // > 0: drop entries whose duration is below it (no duration: -1, dropped)
  double max_duration = 0;  // > 0: drop entries whose duration is above it
  bool read_text = true;    // false: `text` is not kept
};

// Parses one manifest's text. Blank lines (white space only) are skipped, a UTF-8 byte-order mark
// and '\r' before '\n' are allowed. Entries outside [min_duration, max_duration] are dropped, as
// DALI does (by the manifest's duration). Throws sluice::Error naming `manifest_name` and the line
// for a line that is not a JSON object (or not valid UTF-8), whose audio_filepath is missing, not a
// string or empty, whose duration or offset is not a number or is negative, or whose text is not a
// string.
std::vector<NemoManifestEntry> ParseNemoManifest(std::string_view text, const std::string& manifest_name,
                                                 const NemoManifestFilter& filter);

// Reads and parses a manifest file; throws naming it if it cannot be read.
std::vector<NemoManifestEntry> ReadNemoManifest(const std::string& path, const NemoManifestFilter& filter);

// Where an entry's audio is: an absolute path as it is; a relative one joined to the manifest's
// folder if a file is there (NeMo's convention), else taken from the working directory as DALI
// takes it. Throws sluice::Error naming the manifest and the line when neither is a regular file.
std::string ResolveNemoAudioPath(const NemoManifestEntry& entry, const std::string& manifest_path);

}  // namespace sluice
