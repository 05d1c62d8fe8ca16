"""jtop's documented controls: fan, nvpmodel, jetson_clocks, restore."""
from jetsond.jtop import JtopException, jtop

with jtop() as jetson:
    if jetson.ok():
        print(jetson.fan.profile)
        jetson.fan.profile = "quiet"
        jetson.fan.speed = 90
        models = jetson.nvpmodel.models
        print(models)
        jetson.nvpmodel = models[0]
        jetson.nvpmodel = 0
        try:
            jetson.nvpmodel += 1  # on this board it needs a reboot
        except JtopException as e:
            print("nvpmodel:", e)
        print(jetson.nvpmodel)
        jetson.jetson_clocks = not jetson.jetson_clocks
        jetson.jetson_clocks.boot = True
        print(jetson.jetson_clocks.status)
        for status, message in jetson.restore():
            if status:
                print(message)
            else:
                print("Fail")
