"""Links for multi-process models."""

from chainermn.links._batch_normalization import MultiNodeBatchNormalization
from chainermn.links._multi_node_chain_list import MultiNodeChainList
from chainermn.links._n_step_rnn import create_multi_node_n_step_rnn
from chainermn.links.create_mnbn_model import create_mnbn_model

__all__ = ["MultiNodeBatchNormalization", "MultiNodeChainList", "create_mnbn_model", "create_multi_node_n_step_rnn"]
