// placeholder: the frontend is being written
