print("orientctl: not yet")
