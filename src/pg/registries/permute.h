// id_gen: the keyed permutation (permute.cpp).
#pragma once

namespace idgen::pg {

// Defines id_gen.permute_aes_ni (called from _PG_init).
void permute_define_settings();

}  // namespace idgen::pg
