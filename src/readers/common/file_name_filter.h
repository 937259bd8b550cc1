// readers.file's file_filters, compiled once per listing: the same answers as fnmatch(3) (what
// MatchesAnyFilter calls), without fnmatch's cost per name.
//
// fnmatch is slow on the common case: in a UTF-8 locale (Python sets one) it converts pattern and
// name to wide characters and folds them with towlower for every call, and readers.file asks 12
// default patterns about every file. Patterns that are a literal or "*" + a literal (all of the
// defaults) are matched here directly on ASCII names, with fnmatch's own case folding of the ASCII
// letters in the current locale; anything else (other patterns, names with non-ASCII bytes) goes
// to fnmatch.
#pragma once
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

// DALI's default file_filters.
std::vector<std::string> DefaultFileFilters();

// fnmatch-style glob match of a file name against any of `filters` (FNM_CASEFOLD unless
// case_sensitive): fnmatch itself, for the few callers that match once (FileNameFilter is for
// whole listings).
bool MatchesAnyFilter(const std::string& name, const std::vector<std::string>& filters, bool case_sensitive);

class FileNameFilter {
 public:
  FileNameFilter(const std::vector<std::string>& filters, bool case_sensitive);
  // fnmatch(filter, name, case_sensitive ? 0 : FNM_CASEFOLD) == 0 for any filter.
  bool Matches(std::string_view name) const;

 private:
  struct Pattern {
    std::string text;     // as given (for fnmatch)
    bool literal = false;  // no wildcard after an optional leading '*', ASCII only
    bool star = false;     // literal after a leading '*': a suffix match
    std::string folded;    // the literal part, folded
  };
  bool MatchesLiteral(const Pattern& p, std::string_view name) const;

  std::vector<Pattern> patterns_;
  int flags_ = 0;
  std::array<unsigned char, 128> fold_{};  // fnmatch's folding of each ASCII character
};

}  // namespace sluice
