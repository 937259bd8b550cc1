// Warnings from readers (index built by scanning, duplicate components, ...). One place, so the
// destination can change when the project gets a logger; today: stderr, one line each.
#pragma once
#include <string>

namespace sluice {

void ReaderWarning(const std::string& message);

}  // namespace sluice
