// id_gen: per-backend generator state shared by the SQL areas: the entropy pool
// (backend_entropy.cpp) and the backend's UUIDv7 sequence (uuidv7.cpp).
#pragma once

#include "backend_entropy.h"
#include "core/clock.h"
#include "core/uuidv7.h"

namespace idgen::pg {

// The next UUIDv7 of the backend's generator, shared by gen_uuidv7(), gen_prefixed() and the
// correlation IDs (one ascending sequence per backend).
[[nodiscard]] Result<Uuid> next_uuidv7() noexcept;

}  // namespace idgen::pg
