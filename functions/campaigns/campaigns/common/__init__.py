"""Campaign-wide domain helpers shared by the audience and sending slices."""
