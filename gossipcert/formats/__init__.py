"""Other tools' files: MSCCL XML algorithms, SCCL and TE-CCL JSON schedules (the topologies of
the collective-synthesis tools are read by :mod:`gossipcert.graphs.topologies`, the limits on
untrusted input are :mod:`gossipcert.limits`).

Modules (imported one by one; this package imports none of them):

- :mod:`.msccl_xml`: the hardened reader of MSCCL XML (what the executor loads);
- :mod:`.timing`, :mod:`.replay`, :mod:`.findings`: as-soon-as-possible rounds and the
  slot-level replay with its violations;
- :mod:`.json_algorithms`: SCCL and TE-CCL JSON schedules;
- :mod:`.readers`, :mod:`.verdict`: one entry point per format and the verdict (model,
  optimum, gap): :func:`gossipcert.formats.verdict.verify_algorithm`;
- :mod:`.writers`: verified schedules as MSCCL XML and SCCL JSON, with
  :mod:`.reduction_writer` (the reductions) and :mod:`.send_order` (a GPU's sends round by
  round).
"""
