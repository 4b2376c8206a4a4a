"""Argo CD as fedgate's neighbour: its glob languages, its AppProject permission rules and its
directory sources, ported from its source so that compile refuses what Argo CD would refuse."""
