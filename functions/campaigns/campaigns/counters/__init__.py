"""Write-time counters: per-day account, campaign and provider counts, engagement by place and
device, link clicks, campaigns by completion time. Sending, the dispatcher, tracking and feedback
add to them as things happen; analytics only reads them (its answers never scan emails)."""
