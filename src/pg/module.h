// id_gen: per-backend state shared by the generators of every ID kind.
#pragma once

#include "core/entropy.h"
#include "core/clock.h"
#include "core/uuidv7.h"

namespace idgen::pg {

// The backend's block-buffered kernel CSPRNG (see EntropyPool).
EntropyPool& backend_entropy() noexcept;

// The next UUIDv7 of the backend's generator, shared by gen_uuidv7() and gen_prefixed() (one
// ascending sequence per backend).
[[nodiscard]] Result<Uuid> next_uuidv7() noexcept;

}  // namespace idgen::pg
