// id_gen: the backend's source of randomness, shared by the generators of every ID kind.
#pragma once

#include "core/base/entropy.h"

namespace idgen::pg {

// The backend's block-buffered kernel CSPRNG (see EntropyPool).
EntropyPool& backend_entropy() noexcept;

}  // namespace idgen::pg
