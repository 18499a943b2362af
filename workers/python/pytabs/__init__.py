"""PyTabs' Python side: what runs inside each session's worker.

``runtime.Runtime`` is the entry point; the other modules are its parts:
``executor`` runs cells, ``explain`` says what an error means, ``display`` turns values into MIME bundles,
``replay`` picks the statements a restore re-runs, ``checks`` runs an
assignment's checks on a copy of the namespace, ``state`` keeps the
namespace in step with storage, ``stdin`` makes ``input()`` ask the person, and
``trace`` records a run's steps for a step-through.
"""
