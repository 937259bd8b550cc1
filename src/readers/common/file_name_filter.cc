#include "readers/common/file_name_filter.h"

#include <fnmatch.h>

#include <cctype>
#include <cstdlib>
#include <cwctype>

namespace sluice {

namespace {

bool IsAscii(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

}  // namespace

FileNameFilter::FileNameFilter(const std::vector<std::string>& filters, bool case_sensitive)
    : flags_(case_sensitive ? 0 : FNM_CASEFOLD) {
  // glibc's fnmatch folds with tolower in single-byte locales and with towlower on wide characters
  // otherwise; ASCII bytes are the same characters in both (the locale is read per listing).
  const bool multibyte = MB_CUR_MAX != 1;
  for (int c = 0; c < 128; ++c) {
    int f = c;
    if (!case_sensitive) f = multibyte ? static_cast<int>(std::towlower(static_cast<wint_t>(c))) : std::tolower(c);
    // A letter that folds outside ASCII (a Turkish locale's 'I') is never matched directly.
    fold_[static_cast<size_t>(c)] = f >= 0 && f < 128 ? static_cast<unsigned char>(f) : 0x80;
  }
  for (const std::string& f : filters) {
    Pattern p;
    p.text = f;
    std::string_view lit = f;
    p.star = !lit.empty() && lit.front() == '*';
    if (p.star) lit.remove_prefix(1);
    p.literal = IsAscii(lit) && lit.find_first_of("*?[\\") == std::string_view::npos;
    for (char c : lit) {
      const unsigned char folded = fold_[static_cast<unsigned char>(c) & 0x7f];
      if (folded == 0x80 || c == '\0') p.literal = false;
      p.folded.push_back(static_cast<char>(folded));
    }
    patterns_.push_back(std::move(p));
  }
}

bool FileNameFilter::MatchesLiteral(const Pattern& p, std::string_view name) const {
  if (p.star ? name.size() < p.folded.size() : name.size() != p.folded.size()) return false;
  const char* n = name.data() + (name.size() - p.folded.size());
  for (size_t i = 0; i < p.folded.size(); ++i)
    if (fold_[static_cast<unsigned char>(n[i])] != static_cast<unsigned char>(p.folded[i])) return false;
  return true;
}

bool FileNameFilter::Matches(std::string_view name) const {
  const bool ascii = IsAscii(name);
  std::string nul_terminated;
  for (const Pattern& p : patterns_) {
    if (ascii && p.literal) {
      if (MatchesLiteral(p, name)) return true;
      continue;
    }
    if (nul_terminated.empty()) nul_terminated.assign(name);
    if (::fnmatch(p.text.c_str(), nul_terminated.c_str(), flags_) == 0) return true;
  }
  return false;
}

std::vector<std::string> DefaultFileFilters() {
  // DALI's: the image formats and the audio ones decoders.audio reads.
  return {"*.jpg", "*.jpeg", "*.png", "*.bmp", "*.tif", "*.tiff", "*.pnm", "*.ppm",
          "*.pgm", "*.pbm", "*.jp2", "*.webp", "*.flac", "*.ogg", "*.wav"};
}

bool MatchesAnyFilter(const std::string& name, const std::vector<std::string>& filters, bool case_sensitive) {
  const int flags = case_sensitive ? 0 : FNM_CASEFOLD;
  for (const std::string& f : filters)
    if (::fnmatch(f.c_str(), name.c_str(), flags) == 0) return true;
  return false;
}

}  // namespace sluice
