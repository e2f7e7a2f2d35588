// id_gen: the backend's UUIDv7 sequence (defined in uuidv7.cpp), which gen_uuidv7(), gen_prefixed()
// and the correlation IDs share.
#pragma once

#include "core/types/uuidv7.h"

namespace idgen::pg {

// The next UUIDv7 of the backend's generator, shared by gen_uuidv7(), gen_prefixed() and the
// correlation IDs (one ascending sequence per backend).
[[nodiscard]] Result<Uuid> next_uuidv7() noexcept;

}  // namespace idgen::pg
