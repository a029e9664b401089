/*
 * lib/model/config-hybrid.h: the hybrids' layers (config-hybrid.c):
 * Mamba-2 mixers, gated DeltaNet, attention, MLPs and experts, each
 * layer's kinds from the config's own keys; Mamba's recurrent state.
 * Private to lib/model.
 */
#ifndef HMN_MODEL_CONFIG_HYBRID_H
#define HMN_MODEL_CONFIG_HYBRID_H

#include "model/config-layers.h"

/* What a hybrid's layer holds. */
enum { HY_SSM = 1, HY_ATTN = 2, HY_MLP = 4, HY_MOE = 8, HY_GDN = 16, HY_MAMBA = 32,
       HY_LINEAR = 64,      /* attention replaced by one width-by-width matrix (Nemotron-NAS) */
       HY_LINEAR_MLP = 128, /* the MLP replaced by one width-by-width matrix (Nemotron-NAS) */
};

/* Mamba's state instead of heads; the defaults are transformers' MambaConfig's. */
int config_read_recurrent(const struct config *c, struct hmn_model *m, struct shape *s);
/* A hybrid's layers (arch_info.hybrid), each layer's kinds from the config's own keys. */
int config_read_hybrid(const struct config *c, const struct arch_info *f, struct hmn_model *m, struct shape *s);

#endif
