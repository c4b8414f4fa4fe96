"""The ground floor: pure helpers every app may import; lib imports no app."""
