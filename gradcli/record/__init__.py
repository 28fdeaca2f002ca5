"""What a run leaves behind, as data: the Report (what the script printed, its backward calls, its error),
where each graph node and in-place change came from (origin), and the engine's records of each call
(trace). Explanations and views read these; the session writes them."""
